package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"
	workv1 "open-cluster-management.io/api/work/v1"
	workv1alpha1 "open-cluster-management.io/api/work/v1alpha1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/corral-dev/corral/registration/common"
)

// CreateOptions are the options of `corral work create`.
type CreateOptions struct {
	hub
	Name      string
	File      string
	Clusters  []string
	Placement string
	Namespace string
	// In is read for -f -.
	In io.Reader

	manifests []workv1.Manifest
}

// NewCreateOptions returns the defaults: the default namespace for a
// placement.
func NewCreateOptions(out io.Writer) *CreateOptions {
	return &CreateOptions{hub: newHub(out), Namespace: "default", In: os.Stdin}
}

// NewCmdCreate returns `corral work create`.
func NewCmdCreate(out io.Writer) *cobra.Command {
	o := NewCreateOptions(out)
	cmd := &cobra.Command{
		Use:   "create NAME -f FILE (--clusters C1,C2 | --placement P [-n NAMESPACE])",
		Short: "Deliver the objects of a file to clusters: a ManifestWork per cluster, or a ManifestWorkReplicaSet on a placement",
		Long: `Deliver the Kubernetes objects of a YAML or JSON file (several documents, or
kind List) to clusters.

With --clusters, a ManifestWork NAME is created in each cluster's namespace;
every cluster must be accepted by the hub, and none may have a ManifestWork
NAME already. With --placement, a ManifestWorkReplicaSet NAME is created in
the placement's namespace (-n): the hub makes a ManifestWork for every
cluster the placement selects, now and as its decisions change, rolling out
all at once.

Everything is checked first (the file, the clusters or the placement, the
names): when a check fails nothing is created.`,
		Example: `  corral work create web -f web.yaml --clusters cluster1,cluster2
  corral work create web -f web.yaml --placement prod -n apps
  kubectl create deployment web --image=nginx --dry-run=client -o yaml | corral work create web -f - --clusters cluster1`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Name = args[0]
			if err := o.Validate(); err != nil {
				return err
			}
			if err := o.Complete(); err != nil {
				return err
			}
			return o.Run(cmd.Context())
		},
	}
	o.Flags.AddFlags(cmd.Flags())
	f := cmd.Flags()
	f.StringVarP(&o.File, "filename", "f", "", "YAML or JSON file of the objects to deliver (- for standard input)")
	f.StringSliceVar(&o.Clusters, "clusters", nil, "clusters to deliver to: a ManifestWork in each one's namespace")
	f.StringVar(&o.Placement, "placement", "", "deliver to the clusters this Placement selects: a ManifestWorkReplicaSet")
	f.StringVarP(&o.Namespace, "namespace", "n", o.Namespace, "namespace of the placement and the ManifestWorkReplicaSet")
	return cmd
}

// Validate checks the flags, each problem in one line.
func (o *CreateOptions) Validate() error {
	if errs := validation.IsDNS1123Subdomain(o.Name); len(errs) > 0 {
		return fmt.Errorf("work name %q is not valid: %s", o.Name, errs[0])
	}
	if o.File == "" {
		return fmt.Errorf("give the objects to deliver with -f FILE (a YAML or JSON file, or - for standard input)")
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
	return nil
}

// Complete reads the manifests and builds the hub client.
func (o *CreateOptions) Complete() error {
	manifests, err := ReadManifests(o.File, o.In)
	if err != nil {
		return err
	}
	o.manifests = manifests
	return o.complete()
}

// Run checks the targets, then creates.
func (o *CreateOptions) Run(ctx context.Context) error {
	spec := workv1.ManifestWorkSpec{Workload: workv1.ManifestsTemplate{Manifests: o.manifests}}
	if o.Placement != "" {
		return o.createReplicaSet(ctx, spec)
	}
	if err := checkClustersAccepted(ctx, o.client, o.Clusters); err != nil {
		return fmt.Errorf("%w; nothing was created", err)
	}
	var taken []string
	for _, c := range o.Clusters {
		err := o.client.Get(ctx, client.ObjectKey{Namespace: c, Name: o.Name}, &workv1.ManifestWork{})
		switch {
		case err == nil:
			taken = append(taken, c)
		case !apierrors.IsNotFound(err):
			return fmt.Errorf("reading ManifestWork %s/%s: %w", c, o.Name, err)
		}
	}
	if len(taken) > 0 {
		return fmt.Errorf("ManifestWork %s already exists on cluster %s: delete it first (corral work delete %s --clusters %s) or choose another name; nothing was created",
			o.Name, strings.Join(taken, ", "), o.Name, strings.Join(taken, ","))
	}
	for _, c := range o.Clusters {
		w := &workv1.ManifestWork{ObjectMeta: metav1.ObjectMeta{Namespace: c, Name: o.Name}, Spec: spec}
		if err := o.client.Create(ctx, w); err != nil {
			return fmt.Errorf("creating ManifestWork %s on cluster %s: %w", o.Name, c, err)
		}
		fmt.Fprintf(o.Out, "manifestwork %s created on cluster %s\n", o.Name, c)
	}
	return nil
}

// createReplicaSet checks the placement, then creates the set.
func (o *CreateOptions) createReplicaSet(ctx context.Context, spec workv1.ManifestWorkSpec) error {
	err := o.client.Get(ctx, client.ObjectKey{Namespace: o.Namespace, Name: o.Placement}, &clusterv1beta1.Placement{})
	if apierrors.IsNotFound(err) {
		return fmt.Errorf("no Placement %s in namespace %s on the hub: create it first, or give its namespace with -n; nothing was created", o.Placement, o.Namespace)
	}
	if err != nil {
		return fmt.Errorf("reading Placement %s/%s: %w", o.Namespace, o.Placement, err)
	}
	set := &workv1alpha1.ManifestWorkReplicaSet{
		ObjectMeta: metav1.ObjectMeta{Namespace: o.Namespace, Name: o.Name},
		Spec: workv1alpha1.ManifestWorkReplicaSetSpec{
			ManifestWorkTemplate: spec,
			PlacementRefs:        []workv1alpha1.LocalPlacementReference{{Name: o.Placement}},
		},
	}
	if err := o.client.Create(ctx, set); err != nil {
		if apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("ManifestWorkReplicaSet %s already exists in namespace %s: delete it first (corral work delete %s -n %s) or choose another name",
				o.Name, o.Namespace, o.Name, o.Namespace)
		}
		return fmt.Errorf("creating ManifestWorkReplicaSet %s/%s: %w", o.Namespace, o.Name, err)
	}
	fmt.Fprintf(o.Out, "manifestworkreplicaset %s created in namespace %s, on the clusters placement %s selects\n", o.Name, o.Namespace, o.Placement)
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
