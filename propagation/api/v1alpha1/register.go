package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// GroupName is the API group of the propagation addon.
const GroupName = "apps.corral.dev"

// GroupVersion is this package's group and version.
var GroupVersion = schema.GroupVersion{Group: GroupName, Version: "v1alpha1"}

var schemeBuilder = runtime.NewSchemeBuilder(addKnownTypes)

// Install adds this package's kinds to a scheme.
var Install = schemeBuilder.AddToScheme

// AddToScheme is Install, under the name controller-runtime's callers expect.
var AddToScheme = Install

// Resource returns the group-qualified resource of this group.
func Resource(resource string) schema.GroupResource {
	return GroupVersion.WithResource(resource).GroupResource()
}

func addKnownTypes(s *runtime.Scheme) error {
	s.AddKnownTypes(GroupVersion,
		&Propagation{}, &PropagationList{},
		&ClusterPropagation{}, &ClusterPropagationList{},
		&PropagationRevision{}, &PropagationRevisionList{},
		&ClusterPropagationRevision{}, &ClusterPropagationRevisionList{},
		&OverridePolicy{}, &OverridePolicyList{},
		&ClusterOverridePolicy{}, &ClusterOverridePolicyList{},
	)
	metav1.AddToGroupVersion(s, GroupVersion)
	return nil
}
