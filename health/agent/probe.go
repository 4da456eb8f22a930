package agent

import (
	"context"
	"fmt"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/corral-dev/corral/health/api"
)

// maxMessage bounds a probe's message in the report.
const maxMessage = 256

func short(s string) string {
	s = strings.TrimSpace(s)
	if len(s) > maxMessage {
		return s[:maxMessage] + "…"
	}
	return s
}

// probeEndpoint GETs path (/livez, /readyz) on the API server, within
// ctx's deadline.
func probeEndpoint(ctx context.Context, kube kubernetes.Interface, path string) api.Check {
	rc := kube.Discovery().RESTClient()
	if rc == nil {
		return api.Check{Message: "no REST client to probe " + path + " with"}
	}
	body, err := rc.Get().AbsPath(path).DoRaw(ctx)
	if err != nil {
		return api.Check{Message: short(fmt.Sprintf("GET %s: %v", path, err))}
	}
	return api.Check{OK: true, Message: short(string(body))}
}

// probeNodes counts the Ready nodes, within ctx's deadline.
func probeNodes(ctx context.Context, kube kubernetes.Interface) api.Nodes {
	list, err := kube.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		return api.Nodes{Error: short(fmt.Sprintf("listing nodes: %v", err))}
	}
	return CountNodes(list.Items)
}

// CountNodes counts nodes and the Ready ones, naming some that are not.
func CountNodes(nodes []corev1.Node) api.Nodes {
	out := api.Nodes{Total: len(nodes)}
	for i := range nodes {
		if nodeReady(&nodes[i]) {
			out.Ready++
		} else if len(out.NotReady) < api.MaxNamesListed {
			out.NotReady = append(out.NotReady, nodes[i].Name)
		}
	}
	return out
}

func nodeReady(n *corev1.Node) bool {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// probeWorkloads checks each listed workload is Available, within ctx's
// deadline.
func probeWorkloads(ctx context.Context, kube kubernetes.Interface, refs []api.WorkloadRef) []api.Workload {
	out := make([]api.Workload, 0, len(refs))
	for _, ref := range refs {
		w := api.Workload{WorkloadRef: ref}
		switch ref.Kind {
		case api.KindDeployment:
			d, err := kube.AppsV1().Deployments(ref.Namespace).Get(ctx, ref.Name, metav1.GetOptions{})
			w.Available, w.Message = deploymentAvailable(d, err)
		case api.KindDaemonSet:
			ds, err := kube.AppsV1().DaemonSets(ref.Namespace).Get(ctx, ref.Name, metav1.GetOptions{})
			w.Available, w.Message = daemonSetAvailable(ds, err)
		default:
			w.Message = fmt.Sprintf("kind %s is not supported", ref.Kind)
		}
		w.Message = short(w.Message)
		out = append(out, w)
	}
	return out
}

func deploymentAvailable(d *appsv1.Deployment, err error) (bool, string) {
	if err != nil {
		return false, err.Error()
	}
	for _, c := range d.Status.Conditions {
		if c.Type == appsv1.DeploymentAvailable {
			return c.Status == corev1.ConditionTrue, fmt.Sprintf("%d/%d replicas available: %s", d.Status.AvailableReplicas, d.Status.Replicas, c.Message)
		}
	}
	return false, "no Available condition yet"
}

func daemonSetAvailable(ds *appsv1.DaemonSet, err error) (bool, string) {
	if err != nil {
		return false, err.Error()
	}
	msg := fmt.Sprintf("%d/%d pods available", ds.Status.NumberAvailable, ds.Status.DesiredNumberScheduled)
	return ds.Status.NumberUnavailable == 0 && ds.Status.NumberAvailable >= ds.Status.DesiredNumberScheduled, msg
}
