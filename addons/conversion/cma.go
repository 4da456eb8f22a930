package conversion

import (
	"encoding/json"
	"fmt"

	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"
)

// cmaV1alpha1Fields is what of a v1alpha1 ClusterManagementAddOn the
// v1beta1 version cannot hold.
type cmaV1alpha1Fields struct {
	AddOnConfiguration *addonv1alpha1.ConfigCoordinates `json:"addOnConfiguration,omitempty"`
}

// ClusterManagementAddOnToV1beta1 converts a v1alpha1
// ClusterManagementAddOn to v1beta1; in is not changed.
//
//nolint:staticcheck // v1alpha1's deprecated fields are what conversion must carry
func ClusterManagementAddOnToV1beta1(in *addonv1alpha1.ClusterManagementAddOn) (*addonv1beta1.ClusterManagementAddOn, error) {
	src := in.DeepCopy()
	out := &addonv1beta1.ClusterManagementAddOn{}
	if err := addonv1beta1.Convert_v1alpha1_ClusterManagementAddOn_To_v1beta1_ClusterManagementAddOn(src, out, nil); err != nil {
		return nil, fmt.Errorf("converting ClusterManagementAddOn %s to v1beta1: %w", in.Name, err)
	}
	out.TypeMeta.APIVersion = addonv1beta1.GroupVersion.String()
	out.TypeMeta.Kind = "ClusterManagementAddOn"
	if src.Spec.AddOnConfiguration != (addonv1alpha1.ConfigCoordinates{}) {
		b, err := json.Marshal(cmaV1alpha1Fields{AddOnConfiguration: &src.Spec.AddOnConfiguration})
		if err != nil {
			return nil, err
		}
		setAnnotation(&out.ObjectMeta.Annotations, V1alpha1FieldsAnnotation, string(b))
	}
	return out, nil
}

// ClusterManagementAddOnToV1alpha1 converts a v1beta1
// ClusterManagementAddOn to v1alpha1, restoring what
// ClusterManagementAddOnToV1beta1 carried in an annotation; in is not
// changed.
//
//nolint:staticcheck // v1alpha1's deprecated fields are what conversion must carry
func ClusterManagementAddOnToV1alpha1(in *addonv1beta1.ClusterManagementAddOn) (*addonv1alpha1.ClusterManagementAddOn, error) {
	src := in.DeepCopy()
	out := &addonv1alpha1.ClusterManagementAddOn{}
	if err := addonv1beta1.Convert_v1beta1_ClusterManagementAddOn_To_v1alpha1_ClusterManagementAddOn(src, out, nil); err != nil {
		return nil, fmt.Errorf("converting ClusterManagementAddOn %s to v1alpha1: %w", in.Name, err)
	}
	out.TypeMeta.APIVersion = addonv1alpha1.GroupVersion.String()
	out.TypeMeta.Kind = "ClusterManagementAddOn"
	raw, ok := out.Annotations[V1alpha1FieldsAnnotation]
	if !ok {
		return out, nil
	}
	deleteAnnotation(&out.ObjectMeta.Annotations, V1alpha1FieldsAnnotation)
	var f cmaV1alpha1Fields
	if err := json.Unmarshal([]byte(raw), &f); err == nil && f.AddOnConfiguration != nil {
		out.Spec.AddOnConfiguration = *f.AddOnConfiguration
	}
	return out, nil
}
