package agent

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kubefake "k8s.io/client-go/kubernetes/fake"
)

// TestPutSecret: the first write creates the namespace and the Secret; a
// second replaces the Secret's data.
func TestPutSecret(t *testing.T) {
	ctx := context.Background()
	managed := kubefake.NewClientset()
	secret := func(value string) *corev1.Secret {
		return &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "agent-ns", Name: "s"}, Data: map[string][]byte{"k": []byte(value)}}
	}
	for _, value := range []string{"first", "second"} {
		if err := putSecret(ctx, managed, secret(value)); err != nil {
			t.Fatalf("writing %q: %v", value, err)
		}
		got, err := managed.CoreV1().Secrets("agent-ns").Get(ctx, "s", metav1.GetOptions{})
		if err != nil || string(got.Data["k"]) != value {
			t.Fatalf("after writing %q the Secret is %v, %v", value, got, err)
		}
	}
	if _, err := managed.CoreV1().Namespaces().Get(ctx, "agent-ns", metav1.GetOptions{}); err != nil {
		t.Errorf("the namespace was not created: %v", err)
	}
}
