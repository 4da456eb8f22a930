package cli

import (
	"encoding/json"
	"fmt"
	"slices"
	"sync"

	"k8s.io/apiextensions-apiserver/pkg/apihelpers"
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"
	"sigs.k8s.io/yaml"

	"github.com/corral-dev/corral/deploy/charts/corral-hub/crds"
)

// placementCRD is the Placement CRD's name, as the api module ships it.
const placementCRD = "placements.cluster.open-cluster-management.io"

// placementSchema is the structural schema of the Placement CRD's
// v1beta1, built once: its defaults are the ones the hub's API server
// gives every Placement it stores.
var placementSchema = sync.OnceValues(func() (*structuralschema.Structural, error) {
	all, err := crds.All()
	if err != nil {
		return nil, err
	}
	i := slices.IndexFunc(all, func(crd *apiextensionsv1.CustomResourceDefinition) bool { return crd.Name == placementCRD })
	if i < 0 {
		return nil, fmt.Errorf("the api module ships no CRD %s", placementCRD)
	}
	v, err := apihelpers.GetSchemaForVersion(all[i], clusterv1beta1.GroupVersion.Version)
	if err != nil {
		return nil, err
	}
	if v == nil {
		return nil, fmt.Errorf("the CRD %s has no %s schema", placementCRD, clusterv1beta1.GroupVersion.Version)
	}
	internal := &apiextensions.JSONSchemaProps{}
	if err := apiextensionsv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(v.OpenAPIV3Schema, internal, nil); err != nil {
		return nil, err
	}
	return structuralschema.NewStructural(internal)
})

// decodeWithDefaults decodes a Placement from YAML or JSON as the hub's
// API server stores it: with the defaults of the api's CRD (a
// prioritizer's weight 1, mode Additive, scoreRateLimit 1m, sortBy
// ClusterName…), so that what the scheduler makes of it is what it makes
// of the hub's.
func decodeWithDefaults(data []byte) (*clusterv1beta1.Placement, error) {
	p := &clusterv1beta1.Placement{}
	if err := yaml.UnmarshalStrict(data, p); err != nil { // unknown fields and wrong types, in the user's terms
		return nil, err
	}
	var obj map[string]any
	if err := yaml.Unmarshal(data, &obj); err != nil {
		return nil, err
	}
	s, err := placementSchema()
	if err != nil {
		return nil, fmt.Errorf("reading the Placement CRD's defaults: %w", err)
	}
	defaulting.Default(obj, s)
	defaulted, err := json.Marshal(obj)
	if err != nil {
		return nil, err
	}
	p = &clusterv1beta1.Placement{}
	return p, json.Unmarshal(defaulted, p)
}
