package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"golang.org/x/term"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	clusterv1alpha1 "open-cluster-management.io/api/cluster/v1alpha1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"
	workv1 "open-cluster-management.io/api/work/v1"
	workv1alpha1 "open-cluster-management.io/api/work/v1alpha1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/corral-dev/corral/internal/confirm"
	"github.com/corral-dev/corral/internal/hubclient"
	"github.com/corral-dev/corral/registration/common"
)

// CreateOptions are the options of `corral work create` and `apply`.
type CreateOptions struct {
	Out io.Writer
	// ErrOut gets the warnings, and --wait's progress when Progress.
	ErrOut    io.Writer
	Hub       hubclient.Hub
	Name      string
	File      string
	Clusters  []string
	Placement string
	Namespace string
	// In is read for -f -.
	In io.Reader
	// Apply updates the objects of works (or a set) already there, instead
	// of refusing them: `corral work apply`.
	Apply bool
	// Confirm is apply's --yes and --dry-run: objects a file no longer
	// has are removed from the clusters, so apply shows them first.
	Confirm confirm.Options
	// Changed says whether a flag was given (cmd.Flags().Changed): on
	// apply only those change a spec already there. Nil: none was.
	Changed func(flag string) bool

	// Feedback turns on WellKnownStatus feedback for the workloads;
	// FeedbackJSON adds JSONPaths rules, KIND/NAME:FIELD=JSONPATH.
	Feedback       bool
	FeedbackJSON   []string
	DeleteOption   string
	UpdateStrategy string
	ForceConflicts bool
	Rollout        RolloutFlags

	// Wait waits, up to Timeout, until the works are applied, available
	// and ready; Progress prints progress lines to ErrOut meanwhile.
	Wait     bool
	Timeout  time.Duration
	Progress bool

	manifests     []workv1.Manifest
	feedbackPaths []feedbackPath
	pollInterval  time.Duration
}

// NewCreateOptions returns the defaults: the default namespace for a
// placement, workloads' status feedback on, --wait up to two minutes
// with progress on a terminal.
func NewCreateOptions(out io.Writer) *CreateOptions {
	return &CreateOptions{Out: out, ErrOut: os.Stderr, Hub: hubclient.New(), Namespace: "default", In: os.Stdin,
		Feedback: true, Timeout: 2 * time.Minute, Progress: term.IsTerminal(int(os.Stderr.Fd())), pollInterval: 2 * time.Second}
}

// deliverExamples are the examples create and apply share.
const deliverExamples = `  # the Deployment of web.yaml shows its readiness in 'corral work get'
  corral work %[1]s web -f web.yaml --clusters cluster1,cluster2 --wait
  corral work %[1]s web -f manifests/ --placement prod -n apps --rollout Progressive --max-concurrency 25%%
  corral work %[1]s web -f web.yaml --cluster cluster1 --feedback-json deployment/web:updated=.status.updatedReplicas
  corral work %[1]s web -f web.yaml --cluster cluster1 --delete-option Orphan --update-strategy ServerSideApply --force-conflicts
  kubectl create deployment web --image=nginx --dry-run=client -o yaml | corral work %[1]s web -f - --clusters cluster1`

// deliverFlagsHelp says what the spec flags do, for create and apply.
const deliverFlagsHelp = `Deployments, StatefulSets, DaemonSets, Jobs and Pods report their status
(WellKnownStatus feedback: ready replicas, ...) unless --feedback=false;
--feedback-json reports any status field of an object. --delete-option,
--update-strategy and --force-conflicts say how the agent removes and
writes the objects. With --placement, --rollout (All, Progressive,
ProgressivePerGroup) and its settings say how the change reaches the
clusters. --wait waits until every work is applied, available and its
workloads ready, and fails, saying where and why, after --timeout.`

// NewCmdCreate returns `corral work create`.
func NewCmdCreate(out io.Writer) *cobra.Command {
	return newCmdDeliver(NewCreateOptions(out), &cobra.Command{
		Use:   "create NAME -f FILE|DIR (--clusters C1,C2 | --placement P [-n NAMESPACE])",
		Short: "Deliver the objects of a file to clusters: a ManifestWork per cluster, or a ManifestWorkReplicaSet on a placement",
		Long: `Deliver the Kubernetes objects of a YAML or JSON file (several documents, or
kind List), or of every .yaml, .yml and .json file of a directory, to
clusters.

With --clusters, a ManifestWork NAME is created in each cluster's namespace;
every cluster must be accepted by the hub and have the work addon enabled,
and none may have a ManifestWork NAME already (change its objects with
'corral work apply'). With --placement, a ManifestWorkReplicaSet NAME is
created in the placement's namespace (-n): the hub makes a ManifestWork for
every cluster the placement selects, now and as its decisions change.

` + deliverFlagsHelp + `

Everything is checked first (the file, a namespaced object without a
namespace, the clusters and their work addon or the placement, the names,
the flags): when a check fails nothing is created.`,
		Example: fmt.Sprintf(deliverExamples, "create"),
	})
}

// NewCmdApply returns `corral work apply`.
func NewCmdApply(out io.Writer) *cobra.Command {
	o := NewCreateOptions(out)
	o.Apply, o.Confirm = true, confirm.NewOptions()
	cmd := newCmdDeliver(o, &cobra.Command{
		Use:   "apply NAME -f FILE|DIR (--clusters C1,C2 | --placement P [-n NAMESPACE])",
		Short: "Deliver the objects of a file to clusters, creating the works or changing the objects of those already there",
		Long: `Like 'corral work create', but a ManifestWork NAME already on a cluster (or a
ManifestWorkReplicaSet NAME on the placement) gets the file's objects in
place of its own, and keeps the rest of its spec (delete option, manifest
configs, executor, rollout strategy) but for what the flags given change.
The work addon's agent updates the objects on the cluster in place, and
removes from it those the file no longer has. Deleting and creating the
work instead would remove every object first. A workload new to the work
gets status feedback unless --feedback=false.

` + deliverFlagsHelp + `

A ManifestWorkReplicaSet NAME must already be on the placement given;
everything is checked first, and when a check fails nothing is written.
An object the file no longer has is removed from the clusters: apply shows
which first and asks (--yes goes ahead without asking, as a script must;
--dry-run only shows it). A ManifestWork its ManifestWorkReplicaSet made is
changed through the set (--placement), not on its own.`,
		Example: fmt.Sprintf(deliverExamples, "apply"),
	})
	o.Confirm.AddFlags(cmd.Flags())
	return cmd
}

// newCmdDeliver wires o to cmd: the arguments, flags and run of create and
// apply.
func newCmdDeliver(o *CreateOptions, cmd *cobra.Command) *cobra.Command {
	cmd.Args = cobra.ExactArgs(1)
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		o.Name, o.Changed, o.ErrOut = args[0], cmd.Flags().Changed, cmd.ErrOrStderr()
		return hubclient.Run(cmd.Context(), o)
	}
	o.AddFlags(cmd.Flags())
	return cmd
}

// AddFlags registers the hub's flags, -f, the clusters or placement, -n,
// the spec's and the rollout's settings, and --wait.
func (o *CreateOptions) AddFlags(fs *pflag.FlagSet) {
	o.Hub.AddFlags(fs)
	fs.StringVarP(&o.File, "filename", "f", "", "YAML or JSON file of the objects to deliver, a directory of them, or - for standard input")
	hubclient.AddClustersFlag(fs, &o.Clusters, "clusters to deliver to: a ManifestWork in each one's namespace")
	fs.StringVar(&o.Placement, "placement", "", "deliver to the clusters this Placement selects: a ManifestWorkReplicaSet")
	fs.StringVarP(&o.Namespace, "namespace", "n", o.Namespace, "namespace of the placement and the ManifestWorkReplicaSet")
	fs.BoolVar(&o.Feedback, flagFeedback, o.Feedback, "report the status of Deployments, StatefulSets, DaemonSets, Jobs and Pods (WellKnownStatus feedback); --feedback=false turns it off")
	fs.StringArrayVar(&o.FeedbackJSON, flagFeedbackJSON, nil, "report a status field of an object, KIND/NAME:FIELD=JSONPATH, e.g. deployment/web:updated=.status.updatedReplicas (repeatable)")
	fs.StringVar(&o.DeleteOption, flagDeleteOption, "", "what deleting the work does to its objects: Foreground (removes them, the default) or Orphan (leaves them)")
	fs.StringVar(&o.UpdateStrategy, flagUpdateStrategy, "", "how the agent writes the objects: Update (the default), CreateOnly, ServerSideApply or ReadOnly")
	fs.BoolVar(&o.ForceConflicts, flagForceConflicts, false, "server-side apply, taking over the fields another field manager owns")
	fs.StringVar(&o.Rollout.Type, flagRollout, "", "with --placement, how a change reaches the clusters: All (the default), Progressive or ProgressivePerGroup")
	fs.StringVar(&o.Rollout.MaxConcurrency, flagMaxConcurrency, "", "Progressive: clusters rolled out to at once, a number or a percentage (e.g. 25%)")
	fs.DurationVar(&o.Rollout.MinSuccessTime, flagMinSuccessTime, 0, "how long a cluster must stay successful before the rollout goes on (e.g. 1m)")
	fs.StringVar(&o.Rollout.ProgressDeadline, flagProgressDeadline, "", "how long a cluster may take before it counts as failed (e.g. 10m, or None)")
	fs.StringVar(&o.Rollout.MaxFailures, flagMaxFailures, "", "failed clusters the rollout tolerates and goes on, a number or a percentage")
	fs.StringSliceVar(&o.Rollout.MandatoryGroups, flagMandatoryGroups, nil, "Progressive, ProgressivePerGroup: decision groups rolled out to first, by name or index (e.g. canary,1)")
	fs.BoolVar(&o.Wait, "wait", false, "wait until every work is applied, available and its workloads ready")
	fs.DurationVar(&o.Timeout, "timeout", o.Timeout, "how long --wait waits")
}

// changed says whether flag was given.
func (o *CreateOptions) changed(flag string) bool { return o.Changed != nil && o.Changed(flag) }

// Validate checks the flags, each problem in one line.
func (o *CreateOptions) Validate() error {
	if errs := validation.IsDNS1123Subdomain(o.Name); len(errs) > 0 {
		return fmt.Errorf("work name %q is not valid: %s", o.Name, errs[0])
	}
	if o.File == "" {
		return fmt.Errorf("give the objects to deliver with -f FILE (a YAML or JSON file, a directory of them, or - for standard input)")
	}
	if (len(o.Clusters) > 0) == (o.Placement != "") {
		return fmt.Errorf("give exactly one of --clusters or --placement")
	}
	var err error
	if o.Clusters, err = common.ClusterNames(o.Clusters); err != nil {
		return err
	}
	if o.Placement != "" {
		if errs := validation.IsDNS1123Subdomain(o.Placement); len(errs) > 0 {
			return fmt.Errorf("placement name %q is not valid: %s", o.Placement, errs[0])
		}
		if errs := validation.IsDNS1123Label(o.Namespace); len(errs) > 0 {
			return fmt.Errorf("namespace %q is not valid: %s", o.Namespace, errs[0])
		}
	}
	if o.Wait && o.Timeout <= 0 {
		return fmt.Errorf("--timeout %s: --wait needs a positive timeout, e.g. --timeout 5m", o.Timeout)
	}
	if err := o.validateSpecFlags(); err != nil {
		return err
	}
	return o.validateRollout()
}

// Complete reads the manifests, checks --feedback-json names objects of
// them, and builds the hub client.
func (o *CreateOptions) Complete() error {
	manifests, err := ReadManifests(o.File, o.In)
	if err != nil {
		return err
	}
	o.manifests = manifests
	if err := o.checkFeedbackTargets(); err != nil {
		return err
	}
	if o.pollInterval == 0 {
		o.pollInterval = 2 * time.Second
	}
	if o.ErrOut == nil {
		o.ErrOut = io.Discard
	}
	return o.Hub.Complete()
}

// Run checks the objects and the targets, then creates (or, with Apply,
// updates), then, with --wait, waits.
func (o *CreateOptions) Run(ctx context.Context) error {
	if err := o.checkNamespaces(ctx); err != nil {
		return err
	}
	if err := o.checkCanWait(ctx); err != nil {
		return err
	}
	var err error
	if o.Placement != "" {
		err = o.deliverToPlacement(ctx)
	} else {
		err = o.deliverToClusters(ctx)
	}
	if err != nil || !o.Wait {
		return err
	}
	return o.wait(ctx)
}

// deliverToClusters checks the clusters, then creates or updates the
// work on each.
func (o *CreateOptions) deliverToClusters(ctx context.Context) error {
	if err := checkClustersAccepted(ctx, o.Hub.Client, o.Clusters); err != nil {
		return fmt.Errorf("%w; %s", err, o.nothing())
	}
	if err := o.checkWorkAddons(ctx); err != nil {
		return err
	}
	existing := map[string]*workv1.ManifestWork{}
	var taken []string
	for _, c := range o.Clusters {
		w := &workv1.ManifestWork{}
		err := o.Hub.Client.Get(ctx, client.ObjectKey{Namespace: c, Name: o.Name}, w)
		switch {
		case err == nil && w.Labels[workv1alpha1.ManifestWorkReplicaSetControllerNameLabelKey] != "":
			set := w.Labels[workv1alpha1.ManifestWorkReplicaSetControllerNameLabelKey]
			return fmt.Errorf("ManifestWork %s on cluster %s is ManifestWorkReplicaSet %s's: change it through the set "+
				"('corral work apply %s -f %s --placement PLACEMENT -n NAMESPACE'), or choose another name; %s",
				o.Name, c, strings.Replace(set, ".", "/", 1), o.Name, o.File, o.nothing())
		case err == nil:
			existing[c] = w
			taken = append(taken, c)
		case !apierrors.IsNotFound(err):
			return fmt.Errorf("reading ManifestWork %s/%s: %w", c, o.Name, err)
		}
	}
	if len(taken) > 0 && !o.Apply {
		return fmt.Errorf("ManifestWork %s already exists on cluster %s: change its objects with 'corral work apply %s -f %s --clusters %s' "+
			"(deleting it first would remove them from the cluster), or choose another name; nothing was created",
			o.Name, strings.Join(taken, ", "), o.Name, o.File, strings.Join(taken, ","))
	}
	e := confirm.Effect{Verb: "apply " + o.Name}
	for _, c := range o.Clusters {
		if w, ok := existing[c]; ok {
			if gone := dropped(w.Spec.Workload.Manifests, o.manifests); len(gone) > 0 {
				e.Removes = append(e.Removes, droppedLine(gone, "cluster "+c))
			}
		}
	}
	if ok, err := o.Confirm.Ask(o.Out, e); !ok || err != nil {
		return err
	}
	mapper := o.Hub.Client.RESTMapper()
	for _, c := range o.Clusters {
		w, ok := existing[c]
		if !ok {
			w = &workv1.ManifestWork{ObjectMeta: metav1.ObjectMeta{Namespace: c, Name: o.Name}, Spec: o.desiredSpec(mapper, nil)}
			if err := o.Hub.Client.Create(ctx, w); err != nil {
				return fmt.Errorf("creating ManifestWork %s on cluster %s: %w", o.Name, c, err)
			}
			fmt.Fprintf(o.Out, "manifestwork %s created on cluster %s\n", o.Name, c)
			continue
		}
		changed, err := o.update(ctx, w, &w.Spec, o.desiredSpec(mapper, &w.Spec))
		if err != nil {
			return fmt.Errorf("updating ManifestWork %s on cluster %s: %w", o.Name, c, err)
		}
		fmt.Fprintf(o.Out, "manifestwork %s %s on cluster %s\n", o.Name, changedWord(changed), c)
	}
	return nil
}

// update gives obj, whose spec is at spec, the spec desired, and writes it
// if that changes it.
func (o *CreateOptions) update(ctx context.Context, obj client.Object, spec *workv1.ManifestWorkSpec, desired workv1.ManifestWorkSpec) (bool, error) {
	if equality.Semantic.DeepEqual(*spec, desired) {
		return false, nil
	}
	*spec = desired
	return true, o.Hub.Client.Update(ctx, obj)
}

func changedWord(changed bool) string {
	if changed {
		return "updated"
	}
	return "unchanged"
}

// nothing says what a refusal left undone.
func (o *CreateOptions) nothing() string {
	if o.Apply {
		return "nothing was written"
	}
	return "nothing was created"
}

// deliverToPlacement checks the placement and the rollout, warns of what
// will keep the works from the clusters, then creates the set (or, with
// Apply, updates the set on that placement).
func (o *CreateOptions) deliverToPlacement(ctx context.Context) error {
	err := o.Hub.Client.Get(ctx, client.ObjectKey{Namespace: o.Namespace, Name: o.Placement}, &clusterv1beta1.Placement{})
	if apierrors.IsNotFound(err) {
		return fmt.Errorf("no Placement %s in namespace %s on the hub: create it first, or give its namespace with -n; %s", o.Placement, o.Namespace, o.nothing())
	}
	if err != nil {
		return fmt.Errorf("reading Placement %s/%s: %w", o.Namespace, o.Placement, err)
	}
	var set *workv1alpha1.ManifestWorkReplicaSet
	if o.Apply {
		found := &workv1alpha1.ManifestWorkReplicaSet{}
		err := o.Hub.Client.Get(ctx, client.ObjectKey{Namespace: o.Namespace, Name: o.Name}, found)
		switch {
		case err == nil:
			set = found
		case !apierrors.IsNotFound(err):
			return fmt.Errorf("reading ManifestWorkReplicaSet %s/%s: %w", o.Namespace, o.Name, err)
		}
	}
	if set != nil {
		return o.updateReplicaSet(ctx, set)
	}
	var strategy clusterv1alpha1.RolloutStrategy
	if len(o.rolloutGiven()) > 0 {
		if strategy, err = o.strategy(strategy); err != nil {
			return fmt.Errorf("%w; %s", err, o.nothing())
		}
	}
	if err := o.warnPlacement(ctx); err != nil {
		return err
	}
	set = &workv1alpha1.ManifestWorkReplicaSet{
		ObjectMeta: metav1.ObjectMeta{Namespace: o.Namespace, Name: o.Name},
		Spec: workv1alpha1.ManifestWorkReplicaSetSpec{
			ManifestWorkTemplate: o.desiredSpec(o.Hub.Client.RESTMapper(), nil),
			PlacementRefs:        []workv1alpha1.LocalPlacementReference{{Name: o.Placement, RolloutStrategy: strategy}},
		},
	}
	if err := o.Hub.Client.Create(ctx, set); err != nil {
		if apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("ManifestWorkReplicaSet %s already exists in namespace %s: change its objects with 'corral work apply %s -f %s --placement %s -n %s' "+
				"(deleting it first would remove them from every cluster), or choose another name",
				o.Name, o.Namespace, o.Name, o.File, o.Placement, o.Namespace)
		}
		return fmt.Errorf("creating ManifestWorkReplicaSet %s/%s: %w", o.Namespace, o.Name, err)
	}
	fmt.Fprintf(o.Out, "manifestworkreplicaset %s created in namespace %s, on the clusters placement %s selects\n", o.Name, o.Namespace, o.Placement)
	return nil
}

// updateReplicaSet gives the set the file's objects and the flags given,
// if it is on the placement given; its rollout strategy then rolls them
// out.
func (o *CreateOptions) updateReplicaSet(ctx context.Context, set *workv1alpha1.ManifestWorkReplicaSet) error {
	var refs []string
	for _, r := range set.Spec.PlacementRefs {
		refs = append(refs, r.Name)
	}
	i := slices.Index(refs, o.Placement)
	if i < 0 {
		return fmt.Errorf("ManifestWorkReplicaSet %s/%s is on placement %s, not %s: apply changes only its objects; nothing was written",
			o.Namespace, o.Name, strings.Join(refs, ", "), o.Placement)
	}
	strategy, err := o.strategy(set.Spec.PlacementRefs[i].RolloutStrategy)
	if err != nil {
		return fmt.Errorf("%w; %s", err, o.nothing())
	}
	if err := o.warnPlacement(ctx); err != nil {
		return err
	}
	e := confirm.Effect{Verb: "apply " + o.Name}
	if gone := dropped(set.Spec.ManifestWorkTemplate.Workload.Manifests, o.manifests); len(gone) > 0 {
		e.Removes = append(e.Removes, droppedLine(gone, "every cluster of placement "+o.Placement))
	}
	if ok, err := o.Confirm.Ask(o.Out, e); !ok || err != nil {
		return err
	}
	desired := set.Spec.DeepCopy()
	desired.ManifestWorkTemplate = o.desiredSpec(o.Hub.Client.RESTMapper(), &set.Spec.ManifestWorkTemplate)
	if len(o.rolloutGiven()) > 0 {
		desired.PlacementRefs[i].RolloutStrategy = strategy
	}
	changed := !equality.Semantic.DeepEqual(set.Spec, *desired)
	if changed {
		set.Spec = *desired
		if err := o.Hub.Client.Update(ctx, set); err != nil {
			return fmt.Errorf("updating ManifestWorkReplicaSet %s/%s: %w", o.Namespace, o.Name, err)
		}
	}
	fmt.Fprintf(o.Out, "manifestworkreplicaset %s %s in namespace %s\n", o.Name, changedWord(changed), o.Namespace)
	return nil
}

// checkClustersAccepted says, in one line, which clusters are unknown or
// not (yet) accepted by the hub.
func checkClustersAccepted(ctx context.Context, c client.Reader, clusters []string) error {
	var unknown, notAccepted []string
	for _, name := range clusters {
		mc := &clusterv1.ManagedCluster{}
		if err := c.Get(ctx, client.ObjectKey{Name: name}, mc); err != nil {
			if apierrors.IsNotFound(err) {
				unknown = append(unknown, name)
				continue
			}
			return fmt.Errorf("reading cluster %s: %w", name, err)
		}
		if !mc.Spec.HubAcceptsClient || !meta.IsStatusConditionTrue(mc.Status.Conditions, clusterv1.ManagedClusterConditionHubAccepted) {
			notAccepted = append(notAccepted, name)
		}
	}
	switch {
	case len(unknown) > 0:
		return fmt.Errorf("no cluster %s on the hub (see corral get clusters)", strings.Join(unknown, ", "))
	case len(notAccepted) > 0:
		return fmt.Errorf("cluster %s is not accepted by the hub yet: accept it first (corral accept %s)", strings.Join(notAccepted, ", "), strings.Join(notAccepted, " "))
	}
	return nil
}
