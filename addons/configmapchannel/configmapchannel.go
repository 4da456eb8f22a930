package configmapchannel

import (
	"context"
	"encoding/json"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"

	"github.com/corral-dev/corral/addons"
)

// LabelReport marks a ConfigMap as an addon's report or settings; its
// value is the addon's name.
const LabelReport = "addon.corral.io/report"

// Key is the data key that holds the JSON.
const Key = "report.json"

// MaxSize bounds an encoded report: a ConfigMap may hold 1 MiB, and a
// report that large would be a bug on the agent side.
const MaxSize = 256 << 10

// Encode returns the ConfigMap data for v.
func Encode(v any) (map[string]string, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("encoding the report: %w", err)
	}
	if len(b) > MaxSize {
		return nil, fmt.Errorf("the report is %d bytes, more than the %d allowed", len(b), MaxSize)
	}
	return map[string]string{Key: string(b)}, nil
}

// Decode reads a ConfigMap written by Write into v.
func Decode(cm *corev1.ConfigMap, v any) error {
	raw, ok := cm.Data[Key]
	if !ok {
		return fmt.Errorf("ConfigMap %s/%s has no %s", cm.Namespace, cm.Name, Key)
	}
	if len(raw) > MaxSize {
		return fmt.Errorf("ConfigMap %s/%s holds %d bytes, more than the %d allowed", cm.Namespace, cm.Name, len(raw), MaxSize)
	}
	if err := json.Unmarshal([]byte(raw), v); err != nil {
		return fmt.Errorf("decoding ConfigMap %s/%s: %w", cm.Namespace, cm.Name, err)
	}
	return nil
}

// Object returns the ConfigMap that carries v for addon.
func Object(namespace, name, addon string, v any) (*corev1.ConfigMap, error) {
	data, err := Encode(v)
	if err != nil {
		return nil, err
	}
	return &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name, Labels: map[string]string{LabelReport: addon}},
		Data:       data,
	}, nil
}

// Write creates or updates the ConfigMap namespace/name with v, through
// kube (an addon agent's hub identity: create, get and update of
// ConfigMaps in its cluster namespace). It writes nothing when the stored
// ConfigMap already holds v.
func Write(ctx context.Context, kube kubernetes.Interface, namespace, name, addon string, v any) error {
	want, err := Object(namespace, name, addon, v)
	if err != nil {
		return err
	}
	cms := kube.CoreV1().ConfigMaps(namespace)
	have, err := cms.Get(ctx, name, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		if _, err := cms.Create(ctx, want, metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("creating ConfigMap %s/%s: %w", namespace, name, err)
		}
		return nil
	case err != nil:
		return fmt.Errorf("reading ConfigMap %s/%s: %w", namespace, name, err)
	}
	if have.Data[Key] == want.Data[Key] && have.Labels[LabelReport] == addon {
		return nil
	}
	have.Data = want.Data
	if have.Labels == nil {
		have.Labels = map[string]string{}
	}
	have.Labels[LabelReport] = addon
	if _, err := cms.Update(ctx, have, metav1.UpdateOptions{}); err != nil {
		return fmt.Errorf("updating ConfigMap %s/%s: %w", namespace, name, err)
	}
	return nil
}

// Read gets namespace/name through kube and decodes it into v; found is
// false when there is no such ConfigMap.
func Read(ctx context.Context, kube kubernetes.Interface, namespace, name string, v any) (found bool, err error) {
	cm, err := kube.CoreV1().ConfigMaps(namespace).Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("reading ConfigMap %s/%s: %w", namespace, name, err)
	}
	return true, Decode(cm, v)
}

// NewCache returns a cache, added to mgr, of the ConfigMaps labelled as
// addon's reports, in every namespace, and nothing else: a hub half
// watches its reports through it (source.Kind) and reads them from it.
func NewCache(mgr ctrl.Manager, addon string) (cache.Cache, error) {
	c, err := cache.New(mgr.GetConfig(), cache.Options{
		Scheme: mgr.GetScheme(),
		Mapper: mgr.GetRESTMapper(),
		ByObject: map[client.Object]cache.ByObject{
			&corev1.ConfigMap{}: {Label: labels.SelectorFromSet(labels.Set{LabelReport: addon})},
		},
	})
	if err != nil {
		return nil, fmt.Errorf("a cache of the %s addon's reports: %w", addon, err)
	}
	if err := mgr.Add(c); err != nil {
		return nil, err
	}
	return c, nil
}

// SetupClusterController registers r with mgr as the controller, named
// name, of a hub half that reflects addon's reports onto ManagedClusters:
// it reconciles a cluster (the request's Name) when the cluster changes,
// when addon's report in its namespace does (reports is NewCache's cache)
// and when addon's ManagedClusterAddOn there does.
func SetupClusterController(mgr ctrl.Manager, name, addon string, reports cache.Cache, workers int, r reconcile.Reconciler) error {
	return ctrl.NewControllerManagedBy(mgr).
		Named(name).
		For(&clusterv1.ManagedCluster{}).
		WatchesRawSource(source.Kind(reports, client.Object(&corev1.ConfigMap{}), handler.EnqueueRequestsFromMapFunc(addons.ClusterOf))).
		Watches(&addonv1alpha1.ManagedClusterAddOn{}, handler.EnqueueRequestsFromMapFunc(func(ctx context.Context, obj client.Object) []reconcile.Request {
			if obj.GetName() != addon {
				return nil
			}
			return addons.ClusterOf(ctx, obj)
		})).
		WithOptions(controller.Options{MaxConcurrentReconciles: workers}).
		Complete(r)
}

// ClusterAndAddon reads, for a hub half reflecting addon's reports, the
// ManagedCluster name and addon's ManagedClusterAddOn in its namespace.
// The cluster is nil when it is gone or being deleted: there is nothing
// to reflect onto. The addon is nil when it is not enabled there; one
// being disabled (deleted) is returned for the caller to judge.
func ClusterAndAddon(ctx context.Context, c client.Reader, name, addon string) (*clusterv1.ManagedCluster, *addonv1alpha1.ManagedClusterAddOn, error) {
	cluster := &clusterv1.ManagedCluster{}
	if err := c.Get(ctx, types.NamespacedName{Name: name}, cluster); err != nil {
		return nil, nil, client.IgnoreNotFound(err)
	}
	if !cluster.DeletionTimestamp.IsZero() {
		return nil, nil, nil
	}
	mca := &addonv1alpha1.ManagedClusterAddOn{}
	err := c.Get(ctx, types.NamespacedName{Namespace: name, Name: addon}, mca)
	switch {
	case apierrors.IsNotFound(err):
		return cluster, nil, nil
	case err != nil:
		return nil, nil, err
	}
	return cluster, mca, nil
}

// AgentRules are the hub permissions an addon's agent needs for the
// channel: create ConfigMaps in its cluster namespace, write its report
// (named report) and follow its settings (named settings), and nothing
// else there.
func AgentRules(report, settings string) []rbacv1.PolicyRule {
	return []rbacv1.PolicyRule{
		{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"create"}},
		{APIGroups: []string{""}, Resources: []string{"configmaps"}, ResourceNames: []string{report}, Verbs: []string{"get", "update", "patch"}},
		{APIGroups: []string{""}, Resources: []string{"configmaps"}, ResourceNames: []string{settings}, Verbs: []string{"get", "list", "watch"}},
	}
}
