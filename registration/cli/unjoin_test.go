package cli

import (
	"bytes"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kubefake "k8s.io/client-go/kubernetes/fake"

	"github.com/corral-dev/corral/internal/confirm"
	"github.com/corral-dev/corral/internal/confirm/confirmtest"
	"github.com/corral-dev/corral/internal/hubclient/hubclienttest"
	"github.com/corral-dev/corral/registration/agent"
)

// TestUnjoinAsks: unjoin --local-only shows the agent's state going; off a
// terminal it is refused without --yes and --dry-run deletes nothing; with
// --yes or a person's y the kubeconfigs go.
func TestUnjoinAsks(t *testing.T) {
	cases := map[string]struct {
		conf    confirm.Options
		wantErr string
		wantOut []string
		goes    bool
	}{
		"off a terminal: refused, naming --yes": {conf: confirm.Options{}, wantErr: "pass --yes",
			wantOut: []string{"  - on the managed cluster: the agent's hub and bootstrap kubeconfigs"}},
		"dry run": {conf: confirm.Options{DryRun: true}, wantOut: []string{"dry run: nothing was changed"}},
		"--yes":   {conf: confirm.Options{Yes: true}, wantOut: []string{"c1: removed the agent's hub and bootstrap kubeconfigs"}, goes: true},
		"a person answering y": {conf: confirm.Options{Terminal: true, In: strings.NewReader("y\n")},
			wantOut: []string{"Unjoin c1? [y/N] "}, goes: true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var out bytes.Buffer
			o := NewUnjoinOptions(&out)
			o.ClusterName, o.LocalOnly, o.Confirm = "c1", true, tc.conf
			o.managed = kubefake.NewSimpleClientset(&corev1.Secret{
				ObjectMeta: metav1.ObjectMeta{Namespace: agent.DefaultSecretNamespace, Name: agent.DefaultSecretName},
				Data:       map[string][]byte{agent.KeyClusterName: []byte("c1")},
			})
			o.installed = hubclienttest.NewClientBuilder(t).Build()
			err := o.Run(t.Context())
			confirmtest.Expect(t, err, out.String(), tc.wantErr, tc.wantOut, nil)
			_, err = o.managed.CoreV1().Secrets(agent.DefaultSecretNamespace).Get(t.Context(), agent.DefaultSecretName, metav1.GetOptions{})
			if gone := err != nil; gone != tc.goes {
				t.Errorf("hub kubeconfig deleted = %v, want %v (%v)", gone, tc.goes, err)
			}
		})
	}
}
