package appliedwork

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	workv1 "open-cluster-management.io/api/work/v1"
	ctrl "sigs.k8s.io/controller-runtime"
)

// HubHash identifies a hub by its API server address, as upstream OCM's
// agent does, so that AppliedManifestWorks of two hubs never collide.
func HubHash(host string) string {
	return fmt.Sprintf("%x", sha256.Sum256([]byte(host)))
}

// Name is the AppliedManifestWork of work from the hub with hubHash.
func Name(hubHash, work string) string { return hubHash + "-" + work }

// WorkName is the ManifestWork an AppliedManifestWork named name tracks,
// and whether it belongs to the hub with hubHash.
func WorkName(hubHash, name string) (string, bool) {
	return strings.CutPrefix(name, hubHash+"-")
}

// Owner is the owner reference the agent puts on what it applies for amw.
func Owner(amw *workv1.AppliedManifestWork) metav1.OwnerReference {
	return metav1.OwnerReference{
		APIVersion: workv1.GroupVersion.String(),
		Kind:       "AppliedManifestWork",
		Name:       amw.Name,
		UID:        amw.UID,
	}
}

// GVR is the resource of an applied resource.
func GVR(r workv1.AppliedManifestResourceMeta) schema.GroupVersionResource {
	return schema.GroupVersionResource{Group: r.Group, Version: r.Version, Resource: r.Resource}
}

// Release takes r out of the work owning it through owner: when orphan,
// or when another owner is left, only owner's reference is removed;
// otherwise the object is deleted (foreground, and only the object with
// the UID that was applied). gone says the object no longer exists (or is
// no longer the one applied).
func Release(ctx context.Context, c dynamic.Interface, r workv1.AppliedManifestResourceMeta, owner types.UID, orphan bool) (gone bool, err error) {
	ri := c.Resource(GVR(r)).Namespace(r.Namespace)
	obj, err := ri.Get(ctx, r.Name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return true, nil
	}
	if err != nil {
		return false, fmt.Errorf("reading %s %s/%s: %w", r.Resource, r.Namespace, r.Name, err)
	}
	if r.UID != "" && string(obj.GetUID()) != r.UID {
		return true, nil
	}
	log := ctrl.LoggerFrom(ctx).WithValues("resource", r.Resource, "namespace", r.Namespace, "name", r.Name)
	var others []metav1.OwnerReference
	mine := false
	for _, ref := range obj.GetOwnerReferences() {
		if ref.UID == owner {
			mine = true
			continue
		}
		others = append(others, ref)
	}
	if orphan || slices.ContainsFunc(others, IsAppliedWork) {
		if !mine {
			return true, nil
		}
		patch, err := json.Marshal(map[string]any{"metadata": map[string]any{
			"resourceVersion": obj.GetResourceVersion(), "ownerReferences": others,
		}})
		if err != nil {
			return false, err
		}
		if _, err := ri.Patch(ctx, r.Name, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil && !apierrors.IsNotFound(err) {
			return false, fmt.Errorf("removing the work's owner from %s %s/%s: %w", r.Resource, r.Namespace, r.Name, err)
		}
		log.V(1).Info("Kept a resource the work no longer applies", "orphan", orphan)
		return true, nil
	}
	if obj.GetDeletionTimestamp() != nil {
		return false, nil
	}
	uid := obj.GetUID()
	policy := metav1.DeletePropagationForeground
	err = ri.Delete(ctx, r.Name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid}, PropagationPolicy: &policy})
	if apierrors.IsNotFound(err) || apierrors.IsConflict(err) {
		return true, nil
	}
	if err != nil {
		return false, fmt.Errorf("deleting %s %s/%s: %w", r.Resource, r.Namespace, r.Name, err)
	}
	log.V(1).Info("Deleted a resource the work no longer applies")
	return false, nil
}

// IsAppliedWork says whether ref is an owner reference to an
// AppliedManifestWork, of any agent.
func IsAppliedWork(ref metav1.OwnerReference) bool {
	return ref.Kind == "AppliedManifestWork" && strings.HasPrefix(ref.APIVersion, workv1.GroupName+"/")
}

// Orphaned says whether the delete option keeps r on the managed cluster
// when its work lets go of it.
func Orphaned(opt *workv1.DeleteOption, r workv1.ResourceIdentifier) bool {
	if opt == nil {
		return false
	}
	switch opt.PropagationPolicy {
	case workv1.DeletePropagationPolicyTypeOrphan:
		return true
	case workv1.DeletePropagationPolicyTypeSelectivelyOrphan:
		if opt.SelectivelyOrphan == nil {
			return false
		}
		for _, rule := range opt.SelectivelyOrphan.OrphaningRules {
			if workv1.ResourceIdentifier(rule) == r {
				return true
			}
		}
	}
	return false
}
