package distribute

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	clusterv1alpha1 "open-cluster-management.io/api/cluster/v1alpha1"
	workv1 "open-cluster-management.io/api/work/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/corral-dev/corral/internal/clusterselector"
	"github.com/corral-dev/corral/propagation/api/v1alpha1"
	"github.com/corral-dev/corral/propagation/hub/division"
	"github.com/corral-dev/corral/propagation/hub/override"
	revisions "github.com/corral-dev/corral/propagation/hub/revision"
)

// content is what one cluster receives of the delivered revision.
type content struct {
	// parts are its manifests, one slice per work.
	parts [][]workv1.Manifest
	// overrides are the override rules applied, each once, in order.
	overrides []string
	// replicas are its shares of the divided workloads.
	replicas []v1alpha1.ReplicaShare
	// err says why the revision cannot be made for the cluster (an
	// override that cannot apply): the cluster keeps what it has.
	err error
}

// contents makes what each cluster receives of the delivered revision:
// the same parts for every cluster when the revision has no overrides
// and divides no replicas; else each cluster's own, its shares of the
// divided workloads set (divide) and then its overrides applied
// (override.Render), the first time the cluster is asked for.
type contents struct {
	shared  *content
	render  *override.Compiled // nil: no overrides
	divided []*divided
	weigher *division.Weigher // nil: nothing divided
	byName  map[string]*content
	objects []workv1.Manifest
	// clusters reads a ManagedCluster, scores its AddOnPlacementScores.
	clusters func(ctx context.Context, name string) (*clusterv1.ManagedCluster, error)
	scores   clusterselector.Scores
}

// of is what cluster receives; with per-cluster content, a cluster that
// cannot be read or rendered for has the error in it.
func (c *contents) of(ctx context.Context, cluster string) *content {
	if c.shared != nil {
		return c.shared
	}
	if got, ok := c.byName[cluster]; ok {
		return got
	}
	got := c.renderFor(ctx, cluster)
	c.byName[cluster] = got
	return got
}

func (c *contents) renderFor(ctx context.Context, name string) *content {
	cluster, err := c.clusters(ctx, name)
	if err != nil {
		return &content{err: err}
	}
	manifests, replicas, err := c.share(name)
	if err != nil {
		return &content{err: err}
	}
	var applied map[int][]string
	if c.render != nil {
		if manifests, applied, err = c.render.Render(manifests, cluster); err != nil {
			return &content{err: err}
		}
	}
	parts, err := revisions.Split(manifests, revisions.PartBudget)
	if err != nil {
		return &content{err: fmt.Errorf("as the cluster receives it: %w", err)}
	}
	return &content{parts: parts, overrides: appliedRules(applied), replicas: replicas}
}

// appliedRules are the rules Render applied, object by object, each
// once, in the order they first apply.
func appliedRules(applied map[int][]string) []string {
	var out []string
	for _, i := range slices.Sorted(maps.Keys(applied)) {
		for _, rule := range applied[i] {
			if !slices.Contains(out, rule) {
				out = append(out, rule)
			}
		}
	}
	return out
}

// contentOf is what cluster receives of the delivered revision, nothing
// when none is delivered.
func (s *scope) contentOf(ctx context.Context, cluster string) *content {
	if s.contents == nil {
		return &content{}
	}
	return s.contents.of(ctx, cluster)
}

// newContents is the contents of rev under policy, split into parts;
// ErrTooLarge when no work can carry one of its objects; an
// *override.Error when one of its overrides does not compile; a
// *policyError when policy's replica scheduling cannot be followed. One
// selector compiler serves the overrides and the weights: it builds its
// CEL environment once.
func (r *Reconciler) newContents(rev *revision, policy *v1alpha1.PropagationPolicy) (*contents, error) {
	sc := scores{r.Client}
	compiler := clusterselector.NewCompiler(sc)
	divided, weigher, err := divisible(rev.objects, policy.ReplicaScheduling, compiler)
	if err != nil {
		return nil, err
	}
	if len(rev.overrides) == 0 && len(divided) == 0 {
		parts, err := revisions.Split(rev.objects, revisions.PartBudget)
		if err != nil {
			return nil, err
		}
		return &contents{shared: &content{parts: parts}}, nil
	}
	c := &contents{divided: divided, weigher: weigher, objects: rev.objects, byName: map[string]*content{}, clusters: r.managedCluster, scores: sc}
	if len(rev.overrides) > 0 {
		if c.render, err = override.CompileSnapshots(rev.overrides, compiler); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// managedCluster reads a cluster from the cache.
func (r *Reconciler) managedCluster(ctx context.Context, name string) (*clusterv1.ManagedCluster, error) {
	mc := &clusterv1.ManagedCluster{}
	err := r.Client.Get(ctx, client.ObjectKey{Name: name}, mc)
	if apierrors.IsNotFound(err) {
		return nil, fmt.Errorf("ManagedCluster %s does not exist: its overrides cannot be known", name)
	}
	if err != nil {
		return nil, fmt.Errorf("reading ManagedCluster %s: %w", name, err)
	}
	return mc, nil
}

// scores are the AddOnPlacementScores an override rule's CEL selector
// reads, from the cache.
type scores struct{ reader client.Reader }

func (s scores) Score(namespace, name string) *clusterv1alpha1.AddOnPlacementScore {
	score := &clusterv1alpha1.AddOnPlacementScore{}
	if err := s.reader.Get(context.Background(), client.ObjectKey{Namespace: namespace, Name: name}, score); err != nil {
		return nil
	}
	return score
}

// made says the revision could be made for the cluster.
func (c *content) made() bool { return c.err == nil }

// reason is the per-cluster condition reason of a content's err.
func (c *content) reason() string {
	if errors.Is(c.err, revisions.ErrTooLarge) {
		return v1alpha1.ReasonTooLarge
	}
	return v1alpha1.ReasonOverrideFailed
}
