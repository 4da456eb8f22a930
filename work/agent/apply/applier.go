package apply

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	workv1 "open-cluster-management.io/api/work/v1"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/corral-dev/corral/work/adoption"
	"github.com/corral-dev/corral/work/agent/appliedwork"
)

// Key names one object on the managed cluster.
type Key struct {
	GVR       schema.GroupVersionResource
	Namespace string
	Name      string
}

func (k Key) String() string {
	return fmt.Sprintf("%s %s/%s", k.GVR.GroupResource(), k.Namespace, k.Name)
}

// Request is one manifest to apply.
type Request struct {
	// Object is the manifest as the ManifestWork carries it.
	Object *unstructured.Unstructured
	// Mapping is Object's kind's REST mapping.
	Mapping *meta.RESTMapping
	// Strategy is the manifest's update strategy; nil means Update.
	Strategy *workv1.UpdateStrategy
	// Owner is the AppliedManifestWork the object is tracked by.
	Owner metav1.OwnerReference
	// CachedVersion is the object's resourceVersion as the managed
	// cluster's watch last saw it; "" when unknown.
	CachedVersion string
	// Absent says the managed cluster's watch does not have the object:
	// it is most likely to be created.
	Absent bool
	// CachedOwners are the object's owner references as the managed
	// cluster's watch last saw them.
	CachedOwners []metav1.OwnerReference
	// NeedObject asks for the object even when nothing changed (for
	// status feedback).
	NeedObject bool
	// Client reads and writes the object; the applier's own when nil. A
	// work with an executor passes one impersonating it, so that the
	// managed API server holds the write to the executor's RBAC.
	Client dynamic.Interface
	// Adoption is the work's adoption policy (its adoption.Annotation);
	// nil for none: every object is taken over, every change put back.
	Adoption *adoption.Policy
}

// Result is what became of one manifest.
type Result struct {
	Key Key
	// Object is the object on the managed cluster after the apply; nil
	// when it is as last applied (not read) and not needed, or when it
	// does not exist.
	Object *unstructured.Unstructured
	// Exists says the object is on the managed cluster.
	Exists bool
	// Wrote says the apply wrote the object.
	Wrote bool
	// Err is why the manifest could not be applied.
	Err error
	// Adoption is what the adoption policy made of it; nil without one.
	Adoption *Verdict
}

// memo is what the applier remembers of one object: the resourceVersion
// it last wrote or checked, the hash of the manifest it applied, (Update)
// a digest of the object's fields outside metadata and status as the
// server stored them, defaults included, and the adoption policy's
// verdict on it.
type memo struct {
	version, hash, content string
	verdict                *Verdict
}

// Applier applies manifests to the managed cluster.
type Applier struct {
	client       dynamic.Interface
	fieldManager string

	mu   sync.Mutex
	seen map[Key]memo
}

// NewApplier returns an Applier writing through client.
func NewApplier(client dynamic.Interface) *Applier {
	return &Applier{client: client, fieldManager: workv1.DefaultFieldManager, seen: map[Key]memo{}}
}

// KeyFor is the key of obj under mapping.
func KeyFor(obj *unstructured.Unstructured, mapping *meta.RESTMapping) Key {
	k := Key{GVR: mapping.Resource, Name: obj.GetName()}
	if mapping.Scope.Name() == meta.RESTScopeNameNamespace {
		k.Namespace = obj.GetNamespace()
	}
	return k
}

// IsEcho reports whether version is the resourceVersion the applier last
// wrote or checked for key: the watch event of an object nobody else
// changed.
func (a *Applier) IsEcho(key Key, version string) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	m, ok := a.seen[key]
	return ok && m.version == version
}

// Forget drops what the applier remembers of key (the object was let go).
func (a *Applier) Forget(key Key) {
	a.mu.Lock()
	defer a.mu.Unlock()
	delete(a.seen, key)
}

// Deleted notes that key was deleted on the managed cluster. The manifest
// applied to it is still remembered, so that creating the object again for
// the same manifest counts as putting back a change.
func (a *Applier) Deleted(key Key) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if m, ok := a.seen[key]; ok {
		a.seen[key] = memo{hash: m.hash}
	}
}

func (a *Applier) remember(key Key, m memo) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.seen[key] = m
}

func (a *Applier) recall(key Key) (memo, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	m, ok := a.seen[key]
	return m, ok
}

// Apply applies req with its strategy.
func (a *Applier) Apply(ctx context.Context, req Request) Result {
	desired := req.Object.DeepCopy()
	unstructured.RemoveNestedField(desired.Object, "status")
	unstructured.RemoveNestedField(desired.Object, "metadata", "resourceVersion")
	unstructured.RemoveNestedField(desired.Object, "metadata", "uid")
	unstructured.RemoveNestedField(desired.Object, "metadata", "creationTimestamp")
	if req.Mapping.Scope.Name() != meta.RESTScopeNameNamespace {
		desired.SetNamespace("")
	}
	secretAsStored(desired)
	key := KeyFor(desired, req.Mapping)
	res := Result{Key: key}
	if key.Namespace == "" && req.Mapping.Scope.Name() == meta.RESTScopeNameNamespace {
		res.Err = invalidError{fmt.Errorf("%s %s is namespace-scoped but has no metadata.namespace: set it in the manifest", desired.GetKind(), desired.GetName())}
		return res
	}
	strategy := workv1.UpdateStrategy{Type: workv1.UpdateStrategyTypeUpdate}
	if req.Strategy != nil && req.Strategy.Type != "" {
		strategy = *req.Strategy
	}
	hash, err := hashOf(desired, strategy, req.Owner)
	if err != nil {
		res.Err = invalidError{err}
		return res
	}
	last, known := a.recall(key)
	unchangedOnHub := known && last.hash == hash
	if unchangedOnHub && !req.NeedObject && req.CachedVersion != "" && last.version == req.CachedVersion {
		res.Exists, res.Adoption = true, last.verdict
		res.Err = last.verdict.refusal(key, req.Adoption)
		return res
	}
	ri := a.resource(req.Client, key)
	log := ctrl.LoggerFrom(ctx).WithValues("object", key.String(), "strategy", strategy.Type)
	// j is the object as the adoption policy judged it, which a write
	// must find unchanged; nil without a policy.
	var j *judgement
	if judged(req.Adoption, strategy) {
		spec, err := digest(desired.Object)
		if err != nil {
			res.Err = invalidError{err}
			return res
		}
		verdict, existing, write, err := a.adopt(ctx, ri, key, desired, strategy, *req.Adoption, unchangedOnHub, spec)
		if err != nil {
			res.Err = err
			return res
		}
		j = &judgement{live: existing, spec: spec}
		if verdict.Reason == adoption.ReasonInSync && unchangedOnHub && last.verdict != nil && last.verdict.Reason == adoption.ReasonPutBack {
			// The report of the change put back stays while the manifest
			// does: a look at the object after the put back, or before the
			// watch saw it, finds it in sync.
			verdict = last.verdict
		}
		res.Adoption = verdict
		if !write {
			res.Object, res.Exists = existing, existing != nil
			if res.Err = verdict.refusal(key, req.Adoption); res.Err != nil {
				log.V(1).Info("Left an object the cluster had as it is", "takeOver", req.Adoption.TakeOver, "fields", len(verdict.Fields))
			}
			if existing != nil {
				a.remember(key, memo{version: existing.GetResourceVersion(), hash: hash, verdict: verdict})
			} else {
				a.Forget(key)
			}
			return res
		}
		if strategy.Type == workv1.UpdateStrategyTypeUpdate {
			// The manifest's digest on the object tells a change made on
			// the cluster from a new manifest after a restart (adopt).
			desired.SetAnnotations(labels.Merge(desired.GetAnnotations(), map[string]string{workv1.ObjectSpecHash: spec}))
		}
	}
	switch strategy.Type {
	case workv1.UpdateStrategyTypeReadOnly:
		res.Object, res.Err = a.get(ctx, ri, key)
	case workv1.UpdateStrategyTypeCreateOnly:
		res.Object, res.Wrote, res.Err = a.createOnly(ctx, ri, key, desired, req.Owner, req.Absent)
	case workv1.UpdateStrategyTypeServerSideApply:
		res.Object, res.Wrote, res.Err = a.serverSideApply(ctx, ri, key, desired, strategy.ServerSideApply, req, unchangedOnHub, j)
	case workv1.UpdateStrategyTypeUpdate:
		var stored string
		if unchangedOnHub {
			stored = last.content
		}
		res.Object, res.Wrote, res.Err = a.update(ctx, ri, key, desired, req.Owner, req.Absent, stored, j)
	default:
		res.Err = invalidError{fmt.Errorf("unknown updateStrategy type %q: use Update, CreateOnly, ServerSideApply or ReadOnly", strategy.Type)}
	}
	res.Exists = res.Object != nil
	if res.Wrote && unchangedOnHub { // put back a change made on the managed cluster
		driftCorrections.Inc()
		log.V(1).Info("Put back a change made on the managed cluster")
	}
	switch {
	case res.Object != nil:
		m := memo{version: res.Object.GetResourceVersion(), hash: hash, verdict: res.Adoption}
		if strategy.Type == workv1.UpdateStrategyTypeUpdate {
			m.content = contentDigest(res.Object)
		}
		a.remember(key, m)
	case res.Err != nil || !res.Exists:
		a.Forget(key)
	}
	if res.Wrote {
		log.V(4).Info("Applied manifest")
	}
	return res
}

func (a *Applier) resource(c dynamic.Interface, key Key) dynamic.ResourceInterface {
	if c == nil {
		c = a.client
	}
	if key.Namespace == "" {
		return c.Resource(key.GVR)
	}
	return c.Resource(key.GVR).Namespace(key.Namespace)
}

func (a *Applier) get(ctx context.Context, ri dynamic.ResourceInterface, key Key) (*unstructured.Unstructured, error) {
	obj, err := ri.Get(ctx, key.Name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", key, err)
	}
	return obj, nil
}

// createOrGet creates desired, or returns the existing object. When
// absent says the watch has not seen the object, creating comes first.
func (a *Applier) createOrGet(ctx context.Context, ri dynamic.ResourceInterface, key Key, desired *unstructured.Unstructured, owner metav1.OwnerReference, absent bool) (obj *unstructured.Unstructured, created bool, err error) {
	if !absent {
		existing, err := a.get(ctx, ri, key)
		if err != nil || existing != nil {
			return existing, false, err
		}
	}
	toCreate := desired.DeepCopy()
	toCreate.SetOwnerReferences(withOwner(toCreate.GetOwnerReferences(), owner))
	labels, _ := mergeMap(nil, desired.GetLabels())
	annotations, _ := mergeMap(nil, desired.GetAnnotations())
	toCreate.SetLabels(labels)
	toCreate.SetAnnotations(annotations)
	obj, err = ri.Create(ctx, toCreate, metav1.CreateOptions{FieldManager: a.fieldManager})
	if apierrors.IsAlreadyExists(err) {
		existing, err := a.get(ctx, ri, key)
		return existing, false, err
	}
	if err != nil {
		return nil, false, fmt.Errorf("creating %s: %w", key, err)
	}
	return obj, true, nil
}

func (a *Applier) createOnly(ctx context.Context, ri dynamic.ResourceInterface, key Key, desired *unstructured.Unstructured, owner metav1.OwnerReference, absent bool) (*unstructured.Unstructured, bool, error) {
	obj, created, err := a.createOrGet(ctx, ri, key, desired, owner, absent)
	if err != nil || created || obj == nil || hasOwner(obj.GetOwnerReferences(), owner) {
		return obj, created, err
	}
	updated, err := a.addOwner(ctx, ri, key, obj, owner)
	return updated, err == nil, err
}

// addOwner adds owner to obj's ownerReferences, guarded by its
// resourceVersion.
func (a *Applier) addOwner(ctx context.Context, ri dynamic.ResourceInterface, key Key, obj *unstructured.Unstructured, owner metav1.OwnerReference) (*unstructured.Unstructured, error) {
	patch, err := json.Marshal(map[string]any{"metadata": map[string]any{
		"resourceVersion": obj.GetResourceVersion(),
		"ownerReferences": withOwner(obj.GetOwnerReferences(), owner),
	}})
	if err != nil {
		return nil, err
	}
	updated, err := ri.Patch(ctx, key.Name, "application/merge-patch+json", patch, metav1.PatchOptions{FieldManager: a.fieldManager})
	if err != nil {
		return nil, fmt.Errorf("adding the AppliedManifestWork owner to %s: %w", key, err)
	}
	return updated, nil
}

// update makes the object as the Update strategy says (see updateBody).
// stored is the digest of the object's content as the server stored it
// when this manifest was last applied ("" when unknown). An object whose
// content is the manifest's, or still that stored one (the manifest's plus
// what the server defaults), is left alone. Otherwise the server gets the
// object to update and decides: an update in which it finds nothing to
// change keeps the resourceVersion, and is no write. When an adoption
// policy judged the object (j), the update is of that version: one
// changed since fails, and is judged again.
func (a *Applier) update(ctx context.Context, ri dynamic.ResourceInterface, key Key, desired *unstructured.Unstructured, owner metav1.OwnerReference, absent bool, stored string,
	j *judgement) (*unstructured.Unstructured, bool, error) {
	var obj *unstructured.Unstructured
	if j != nil {
		obj = j.live
	}
	if obj == nil {
		var created bool
		var err error
		obj, created, err = a.createOrGet(ctx, ri, key, desired, owner, absent || j != nil)
		if err != nil || created || obj == nil {
			return obj, created, err
		}
		if j != nil {
			return nil, false, errChangedMeanwhile(key)
		}
	}
	body, metadataChanged := updateBody(obj, desired, owner)
	if !metadataChanged && (sameContent(obj, body) || stored != "" && stored == contentDigest(obj)) {
		return obj, false, nil
	}
	updated, err := ri.Update(ctx, body, metav1.UpdateOptions{FieldManager: a.fieldManager})
	if err != nil {
		return nil, false, fmt.Errorf("updating %s: %w", key, err)
	}
	return updated, updated.GetResourceVersion() != obj.GetResourceVersion(), nil
}

// serverSideApply applies the manifest with the config's field manager.
// The owner references it applies are the request's owner and the other
// AppliedManifestWorks the object has: works share one field manager, and
// a work that applied only its own would take the others' out, for them
// to put back, without end.
//
// When an adoption policy judged the object (j), the apply is of that
// version: one changed since fails, and is judged again.
func (a *Applier) serverSideApply(ctx context.Context, ri dynamic.ResourceInterface, key Key, desired *unstructured.Unstructured, cfg *workv1.ServerSideApplyConfig, req Request, unchangedOnHub bool,
	j *judgement) (*unstructured.Unstructured, bool, error) {
	if cfg == nil {
		cfg = &workv1.ServerSideApplyConfig{}
	}
	manager := cfg.FieldManager
	if manager == "" {
		manager = a.fieldManager
	}
	config := desired.DeepCopy()
	before, owners := req.CachedVersion, req.CachedOwners
	if len(cfg.IgnoreFields) > 0 || j != nil {
		// The manifest's hash on the object (the api's ObjectSpecHash)
		// tells OnSpokeChange whether the hub changed the manifest since
		// it was applied, also to an agent that has not applied it
		// itself (restarted, or the object applied by another work).
		if j == nil {
			spec, err := digest(desired.Object)
			if err != nil {
				return nil, false, err
			}
			existing, err := a.get(ctx, ri, key)
			if err != nil {
				return nil, false, err
			}
			j = &judgement{live: existing, spec: spec}
		} else if j.live != nil {
			config.SetResourceVersion(j.live.GetResourceVersion())
		}
		spec, existing := j.spec, j.live
		config.SetAnnotations(labels.Merge(config.GetAnnotations(), map[string]string{workv1.ObjectSpecHash: spec}))
		if existing != nil {
			before, owners = existing.GetResourceVersion(), existing.GetOwnerReferences()
			unchangedOnHub = unchangedOnHub || existing.GetAnnotations()[workv1.ObjectSpecHash] == spec
			if err := keepIgnored(config, existing, cfg.IgnoreFields, unchangedOnHub); err != nil {
				return nil, false, &IgnoreFieldsError{Err: err}
			}
		}
	}
	appliedWorks := slices.DeleteFunc(slices.Clone(owners), func(ref metav1.OwnerReference) bool { return !appliedwork.IsAppliedWork(ref) })
	config.SetOwnerReferences(withOwner(appliedWorks, req.Owner))
	data, err := json.Marshal(config.Object)
	if err != nil {
		return nil, false, err
	}
	obj, err := ri.Patch(ctx, key.Name, "application/apply-patch+yaml", data, metav1.PatchOptions{FieldManager: manager, Force: &cfg.Force})
	if apierrors.IsConflict(err) && config.GetResourceVersion() != "" && strings.Contains(err.Error(), "the object has been modified") {
		return nil, false, errChangedMeanwhile(key)
	}
	if apierrors.IsConflict(err) {
		return nil, false, &ConflictError{Err: fmt.Errorf("server-side apply of %s conflicts with another field manager (set serverSideApply.force to take the fields over): %w", key, err)}
	}
	if err != nil {
		return nil, false, fmt.Errorf("server-side applying %s: %w", key, err)
	}
	return obj, obj.GetResourceVersion() != before, nil
}

// errChangedMeanwhile is an object changed (or created) on the cluster
// after the adoption policy judged it: tried again, and judged again.
func errChangedMeanwhile(key Key) error {
	return fmt.Errorf("%s changed on the managed cluster while it was applied: trying again", key)
}

func hashOf(desired *unstructured.Unstructured, strategy workv1.UpdateStrategy, owner metav1.OwnerReference) (string, error) {
	h, err := digest([]any{desired.Object, strategy, owner.UID})
	if err != nil {
		return "", fmt.Errorf("hashing the manifest: %w", err)
	}
	return h, nil
}

// digest is the SHA-256 of v as JSON, in hex.
func digest(v any) (string, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(raw)
	return hex.EncodeToString(sum[:]), nil
}

func hasOwner(refs []metav1.OwnerReference, owner metav1.OwnerReference) bool {
	for _, r := range refs {
		if r.UID == owner.UID {
			return true
		}
	}
	return false
}

func withOwner(refs []metav1.OwnerReference, owner metav1.OwnerReference) []metav1.OwnerReference {
	if hasOwner(refs, owner) {
		return refs
	}
	return append(append([]metav1.OwnerReference(nil), refs...), owner)
}

// secretAsStored writes a Secret's stringData into its data and gives it
// the default type, as the API server stores it, so that the stored Secret
// can be compared with the manifest.
func secretAsStored(obj *unstructured.Unstructured) {
	if obj.GroupVersionKind().GroupKind() != (schema.GroupKind{Kind: "Secret"}) {
		return
	}
	if t, _ := obj.Object["type"].(string); t == "" {
		obj.Object["type"] = string(corev1.SecretTypeOpaque)
	}
	stringData, found, err := unstructured.NestedStringMap(obj.Object, "stringData")
	if !found || err != nil {
		return
	}
	data, _, _ := unstructured.NestedMap(obj.Object, "data")
	if data == nil {
		data = map[string]any{}
	}
	for k, v := range stringData {
		data[k] = base64.StdEncoding.EncodeToString([]byte(v))
	}
	_ = unstructured.SetNestedMap(obj.Object, data, "data")
	unstructured.RemoveNestedField(obj.Object, "stringData")
}
