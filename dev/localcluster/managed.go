package localcluster

import (
	"context"
	"fmt"
	"path/filepath"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// KwokNodeAnnotation, set to KwokNodeValue, marks the nodes kwok manages:
// a node without it is left alone (as a node whose kubelet is gone).
const (
	KwokNodeAnnotation = "kwok.x-k8s.io/node"
	KwokNodeValue      = "fake"
)

// kwokStages are the stage files `make tools` copies from kwok's module:
// nodes become Ready and heartbeat, pods become Running, complete and go.
var kwokStages = []string{
	"node-initialize.yaml", "node-heartbeat.yaml",
	"pod-ready.yaml", "pod-complete.yaml", "pod-delete.yaml",
}

func kwokComponent(binDir string, l layout, p ports) component {
	args := []string{
		"--kubeconfig=" + l.componentKubeconfig(kwokIdentity),
		"--manage-all-nodes=false",
		"--manage-nodes-with-annotation-selector=" + KwokNodeAnnotation + "=" + KwokNodeValue,
		fmt.Sprintf("--server-address=127.0.0.1:%d", p.kwok),
		"--cidr=10.244.0.1/16",
		"--node-ip=127.0.0.1",
	}
	for _, s := range kwokStages {
		args = append(args, "--config="+filepath.Join(binDir, "kwok-stages", s))
	}
	return component{
		name:  "kwok",
		args:  args,
		ready: httpReady(fmt.Sprintf("http://127.0.0.1:%d/healthz", p.kwok), nil),
	}
}

// createNodes registers the fake nodes kwok runs and waits until all are
// Ready.
func (c *Cluster) createNodes(ctx context.Context) error {
	client, err := kubernetes.NewForConfig(c.Config)
	if err != nil {
		return err
	}
	res := c.opts.NodeResources
	capacity := corev1.ResourceList{corev1.ResourceCPU: res.CPU, corev1.ResourceMemory: res.Memory, corev1.ResourcePods: res.Pods}
	names := make([]string, 0, c.opts.Nodes)
	for i := range c.opts.Nodes {
		name := fmt.Sprintf("%s-node-%d", c.Name, i)
		names = append(names, name)
		node := &corev1.Node{
			ObjectMeta: metav1.ObjectMeta{
				Name:        name,
				Annotations: map[string]string{KwokNodeAnnotation: KwokNodeValue},
				Labels: map[string]string{
					"kubernetes.io/hostname": name,
					"kubernetes.io/os":       "linux",
					"kubernetes.io/arch":     "amd64",
					"type":                   "kwok",
				},
			},
			Status: corev1.NodeStatus{Capacity: capacity, Allocatable: capacity},
		}
		if c.opts.RealNode != nil {
			t := KwokToleration()
			node.Spec.Taints = []corev1.Taint{{Key: t.Key, Value: t.Value, Effect: t.Effect}}
		}
		if _, err := client.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("creating node %s: %w", name, err)
		}
	}
	var kwok *process
	for _, p := range c.processes() {
		if p.name == "kwok" {
			kwok = p
		}
	}
	return waitFor(ctx, "nodes", kwok, func(ctx context.Context) error {
		for _, name := range names {
			if err := readyNode(ctx, client, name); err != nil {
				return err
			}
		}
		return nil
	})
}

// readyNode says whether node name is Ready.
func readyNode(ctx context.Context, client kubernetes.Interface, name string) error {
	node, err := client.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return err
	}
	if !NodeReady(node) {
		return fmt.Errorf("node %s is not Ready", name)
	}
	return nil
}

// NodeReady says whether node reports its Ready condition True.
func NodeReady(node *corev1.Node) bool {
	for _, cond := range node.Status.Conditions {
		if cond.Type == corev1.NodeReady {
			return cond.Status == corev1.ConditionTrue
		}
	}
	return false
}
