package conversion

import (
	"encoding/json"
	"fmt"

	certificatesv1 "k8s.io/api/certificates/v1"
	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"
)

// V1alpha1FieldsAnnotation carries, on a v1beta1 object, the v1alpha1
// fields v1beta1 has no place for (JSON), so that converting back restores
// them.
const V1alpha1FieldsAnnotation = "addon.corral.dev/v1alpha1-fields"

// mcaV1alpha1Fields is what of a v1alpha1 ManagedClusterAddOn the v1beta1
// version cannot hold.
type mcaV1alpha1Fields struct {
	AddOnConfiguration *addonv1alpha1.ConfigCoordinates `json:"addOnConfiguration,omitempty"`
	// KubeClientDriver is kept only when no kubeClient registration
	// carries it.
	KubeClientDriver  string                  `json:"kubeClientDriver,omitempty"`
	OrganizationUnits []registrationUnits     `json:"organizationUnits,omitempty"`
	ConfigReferents   []configReferentAtIndex `json:"configReferents,omitempty"`
}

// registrationUnits are the organization units of the kube-client
// registration at Index, for user User.
type registrationUnits struct {
	Index int      `json:"index"`
	User  string   `json:"user"`
	Units []string `json:"units"`
}

// configReferentAtIndex is the deprecated inline referent of the config
// reference at Index, for Group/Resource.
type configReferentAtIndex struct {
	Index    int                          `json:"index"`
	Group    string                       `json:"group"`
	Resource string                       `json:"resource"`
	Referent addonv1alpha1.ConfigReferent `json:"referent"`
}

func (f mcaV1alpha1Fields) empty() bool {
	return f.AddOnConfiguration == nil && f.KubeClientDriver == "" && len(f.OrganizationUnits) == 0 && len(f.ConfigReferents) == 0
}

// ManagedClusterAddOnToV1beta1 converts a v1alpha1 ManagedClusterAddOn to
// v1beta1; in is not changed.
//
//nolint:staticcheck // v1alpha1's deprecated fields are what conversion must carry
func ManagedClusterAddOnToV1beta1(in *addonv1alpha1.ManagedClusterAddOn) (*addonv1beta1.ManagedClusterAddOn, error) {
	src := in.DeepCopy()
	out := &addonv1beta1.ManagedClusterAddOn{}
	if err := addonv1beta1.Convert_v1alpha1_ManagedClusterAddOn_To_v1beta1_ManagedClusterAddOn(src, out, nil); err != nil {
		return nil, fmt.Errorf("converting ManagedClusterAddOn %s/%s to v1beta1: %w", in.Namespace, in.Name, err)
	}
	out.TypeMeta.APIVersion = addonv1beta1.GroupVersion.String()
	out.TypeMeta.Kind = "ManagedClusterAddOn"
	if src.Spec.InstallNamespace != "" {
		setAnnotation(&out.ObjectMeta.Annotations, addonv1beta1.InstallNamespaceAnnotation, src.Spec.InstallNamespace)
	}
	extra := mcaFieldsOf(src)
	if !extra.empty() {
		b, err := json.Marshal(extra)
		if err != nil {
			return nil, err
		}
		setAnnotation(&out.ObjectMeta.Annotations, V1alpha1FieldsAnnotation, string(b))
	}
	return out, nil
}

// mcaFieldsOf collects what of in a v1beta1 object would lose.
//
//nolint:staticcheck // v1alpha1's deprecated fields are what conversion must carry
func mcaFieldsOf(in *addonv1alpha1.ManagedClusterAddOn) mcaV1alpha1Fields {
	var f mcaV1alpha1Fields
	if in.Status.AddOnConfiguration != (addonv1alpha1.ConfigCoordinates{}) {
		f.AddOnConfiguration = in.Status.AddOnConfiguration.DeepCopy()
	}
	hasKubeClient := false
	for i, r := range in.Status.Registrations {
		if r.SignerName != certificatesv1.KubeAPIServerClientSignerName {
			continue
		}
		hasKubeClient = true
		if len(r.Subject.OrganizationUnits) > 0 {
			f.OrganizationUnits = append(f.OrganizationUnits, registrationUnits{Index: i, User: r.Subject.User, Units: r.Subject.OrganizationUnits})
		}
	}
	if !hasKubeClient {
		f.KubeClientDriver = in.Status.KubeClientDriver
	}
	for i, ref := range in.Status.ConfigReferences {
		if ref.ConfigReferent != impliedReferent(ref) {
			f.ConfigReferents = append(f.ConfigReferents, configReferentAtIndex{
				Index: i, Group: ref.Group, Resource: ref.Resource, Referent: ref.ConfigReferent,
			})
		}
	}
	return f
}

// impliedReferent is the deprecated inline referent of a config reference
// as it is rebuilt from v1beta1: its desired config's.
func impliedReferent(ref addonv1alpha1.ConfigReference) addonv1alpha1.ConfigReferent {
	if ref.DesiredConfig == nil {
		return addonv1alpha1.ConfigReferent{}
	}
	return ref.DesiredConfig.ConfigReferent
}

// ManagedClusterAddOnToV1alpha1 converts a v1beta1 ManagedClusterAddOn to
// v1alpha1, restoring what ManagedClusterAddOnToV1beta1 carried in
// annotations; in is not changed.
//
//nolint:staticcheck // v1alpha1's deprecated fields are what conversion must carry
func ManagedClusterAddOnToV1alpha1(in *addonv1beta1.ManagedClusterAddOn) (*addonv1alpha1.ManagedClusterAddOn, error) {
	src := in.DeepCopy()
	out := &addonv1alpha1.ManagedClusterAddOn{}
	if err := addonv1beta1.Convert_v1beta1_ManagedClusterAddOn_To_v1alpha1_ManagedClusterAddOn(src, out, nil); err != nil {
		return nil, fmt.Errorf("converting ManagedClusterAddOn %s/%s to v1alpha1: %w", in.Namespace, in.Name, err)
	}
	out.TypeMeta.APIVersion = addonv1alpha1.GroupVersion.String()
	out.TypeMeta.Kind = "ManagedClusterAddOn"
	if ns, ok := out.Annotations[addonv1beta1.InstallNamespaceAnnotation]; ok {
		out.Spec.InstallNamespace = ns
		deleteAnnotation(&out.ObjectMeta.Annotations, addonv1beta1.InstallNamespaceAnnotation)
	}
	for i := range out.Status.ConfigReferences {
		out.Status.ConfigReferences[i].ConfigReferent = impliedReferent(out.Status.ConfigReferences[i])
	}
	raw, ok := out.Annotations[V1alpha1FieldsAnnotation]
	if !ok {
		return out, nil
	}
	deleteAnnotation(&out.ObjectMeta.Annotations, V1alpha1FieldsAnnotation)
	// A malformed annotation (written by hand) restores nothing: the
	// v1beta1 fields stand.
	var f mcaV1alpha1Fields
	if err := json.Unmarshal([]byte(raw), &f); err == nil {
		restoreMCAFields(out, f)
	}
	return out, nil
}

// restoreMCAFields puts back what v1beta1 could not hold, where the
// v1beta1 object still describes the same thing.
//
//nolint:staticcheck // v1alpha1's deprecated fields are what conversion must carry
func restoreMCAFields(out *addonv1alpha1.ManagedClusterAddOn, f mcaV1alpha1Fields) {
	if f.AddOnConfiguration != nil {
		out.Status.AddOnConfiguration = *f.AddOnConfiguration
	}
	if out.Status.KubeClientDriver == "" {
		out.Status.KubeClientDriver = f.KubeClientDriver
	}
	regs := out.Status.Registrations
	for _, u := range f.OrganizationUnits {
		if u.Index < len(regs) && regs[u.Index].SignerName == certificatesv1.KubeAPIServerClientSignerName &&
			regs[u.Index].Subject.User == u.User && len(regs[u.Index].Subject.OrganizationUnits) == 0 {
			regs[u.Index].Subject.OrganizationUnits = u.Units
		}
	}
	refs := out.Status.ConfigReferences
	for _, r := range f.ConfigReferents {
		if r.Index < len(refs) && refs[r.Index].Group == r.Group && refs[r.Index].Resource == r.Resource {
			refs[r.Index].ConfigReferent = r.Referent
		}
	}
}

func setAnnotation(annotations *map[string]string, key, value string) {
	if *annotations == nil {
		*annotations = map[string]string{}
	}
	(*annotations)[key] = value
}

func deleteAnnotation(annotations *map[string]string, key string) {
	delete(*annotations, key)
	if len(*annotations) == 0 {
		*annotations = nil
	}
}
