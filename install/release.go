package install

import (
	"cmp"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/corral-dev/corral/deploy/charts"
)

// Hub is what `corral init` installs into a hub cluster.
type Hub struct {
	// Namespace the hub's controllers run in; charts.HubNamespace by
	// default.
	Namespace string
	// Version is the corral version installed (the chart's appVersion,
	// and the image tag when Image is empty).
	Version string
	// Image overrides the image, as REPOSITORY:TAG or REPOSITORY@DIGEST.
	Image string
	// Replicas of the hub Deployment; the chart's default when 0.
	Replicas int
	// Addons are the built-in addons whose hub halves run (all when
	// empty).
	Addons []string
	// Deployment runs the hub's controllers in the cluster; without it only
	// the CRDs and the bootstrap identity are installed, for a `corral hub`
	// run elsewhere.
	Deployment bool
}

// Agent is what `corral join` installs into a managed cluster.
type Agent struct {
	// Version, Image, Replicas and Addons are as for the hub. The agent
	// runs in charts.AgentNamespace, where OCM's tools look for it.
	Version  string
	Image    string
	Replicas int
	Addons   []string

	ClusterName         string
	BootstrapKubeconfig []byte
	ClusterURL          string
	ClusterLabels       map[string]string
	ClusterAnnotations  map[string]string
}

// Objects are the objects the hub is made of, in the order they are
// applied: the CRDs, the release namespace, then the chart's.
func (h Hub) Objects() ([]*unstructured.Unstructured, error) {
	h.Namespace = cmp.Or(h.Namespace, charts.HubNamespace)
	values := map[string]any{"deployment": h.Deployment}
	if err := setCommon(values, h.Image, h.Replicas, h.Addons); err != nil {
		return nil, err
	}
	objs, err := crdObjects()
	if err != nil {
		return nil, err
	}
	if h.Deployment {
		objs = append(objs, namespace(h.Namespace, releaseLabels(charts.Hub, h.Version)))
	}
	rendered, err := charts.Hub.Render(charts.Release{Name: string(charts.Hub), Namespace: h.Namespace, Version: h.Version, Values: values})
	if err != nil {
		return nil, err
	}
	return append(objs, rendered...), nil
}

// Objects are the objects a managed cluster's agent is made of, in the
// order they are applied: the release namespace, then the chart's.
func (a Agent) Objects() ([]*unstructured.Unstructured, error) {
	values := map[string]any{
		"clusterName":            a.ClusterName,
		"bootstrapHubKubeconfig": string(a.BootstrapKubeconfig),
		"clusterURL":             a.ClusterURL,
		"clusterLabels":          stringMap(a.ClusterLabels),
		"clusterAnnotations":     stringMap(a.ClusterAnnotations),
	}
	if err := setCommon(values, a.Image, a.Replicas, a.Addons); err != nil {
		return nil, err
	}
	rendered, err := charts.Agent.Render(charts.Release{Name: string(charts.Agent), Namespace: charts.AgentNamespace, Version: a.Version, Values: values})
	if err != nil {
		return nil, err
	}
	return append([]*unstructured.Unstructured{namespace(charts.AgentNamespace, releaseLabels(charts.Agent, a.Version))}, rendered...), nil
}

// setCommon sets the values both charts have.
func setCommon(values map[string]any, image string, replicas int, addons []string) error {
	if image != "" {
		v, err := splitImage(image)
		if err != nil {
			return err
		}
		values["image"] = v
	}
	if replicas > 0 {
		values["replicas"] = replicas
	}
	if len(addons) > 0 {
		list := make([]any, len(addons))
		for i, a := range addons {
			list[i] = a
		}
		values["addons"] = list
	}
	return nil
}

func stringMap(m map[string]string) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}
