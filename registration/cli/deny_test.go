package cli

import (
	"bytes"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kubefake "k8s.io/client-go/kubernetes/fake"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/corral-dev/corral/internal/confirm"
	"github.com/corral-dev/corral/internal/confirm/confirmtest"
	"github.com/corral-dev/corral/internal/hubclient"
	"github.com/corral-dev/corral/internal/hubclient/hubclienttest"
	"github.com/corral-dev/corral/internal/testing/builder"
	"github.com/corral-dev/corral/registration/clientcsr"
)

// TestDenyAsks: denying an accepted cluster shows its access and its live
// works going, is refused off a terminal without --yes and changes nothing
// with --dry-run; denying only a join request asks nothing.
func TestDenyAsks(t *testing.T) {
	c1Lines := []string{
		"  - c1: its access to the hub is revoked",
		"  - c1: ManifestWork web is no longer applied or updated there (what it applied stays)",
	}
	cases := map[string]struct {
		cluster string
		conf    confirm.Options
		wantErr string
		wantOut []string
		notOut  []string
		denied  bool
	}{
		"accepted, off a terminal: refused": {cluster: "c1", conf: confirm.Options{}, wantErr: "pass --yes",
			wantOut: append([]string{"c1: its pending request csr-c1 is denied"}, c1Lines...), notOut: []string{"gone"}},
		"accepted, dry run": {cluster: "c1", conf: confirm.Options{DryRun: true}, wantOut: append(c1Lines, "dry run: nothing was changed")},
		"accepted, --yes":   {cluster: "c1", conf: confirm.Options{Yes: true}, wantOut: append(c1Lines, "c1: denied\n"), denied: true},
		"accepted, a person answering y": {cluster: "c1", conf: confirm.Options{Terminal: true, In: strings.NewReader("y\n")},
			wantOut: []string{"Deny c1? [y/N] ", "c1: denied\n"}, denied: true},
		"only a join request: nothing asked": {cluster: "c2", conf: confirm.Options{},
			wantOut: []string{"c2: denied request csr-c2\nc2: denied\n"}, notOut: []string{"This removes"}, denied: true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c := hubclienttest.NewClientBuilder(t, builder.Cluster("c1").Accepted().Obj(), builder.Cluster("c2").Obj(),
				builder.Work("c1", "web").Obj(), builder.Work("c1", "gone").Finalizer("test").Deleting(time.Now()).Obj()).Build()
			kube := kubefake.NewSimpleClientset(
				builder.CSR("csr-c1").Label(clusterv1.ClusterNameLabelKey, "c1").Obj(),
				builder.CSR("csr-c2").Label(clusterv1.ClusterNameLabelKey, "c2").Obj())
			var out bytes.Buffer
			o := &DenyOptions{Out: &out, Hub: hubclient.Hub{Client: c, Kube: kube}, Confirm: tc.conf, Clusters: []string{tc.cluster}}
			err := o.Run(t.Context())
			confirmtest.Expect(t, err, out.String(), tc.wantErr, tc.wantOut, tc.notOut)
			mc := &clusterv1.ManagedCluster{}
			if err := c.Get(t.Context(), client.ObjectKey{Name: tc.cluster}, mc); err != nil {
				t.Fatal(err)
			}
			csr, err := kube.CertificatesV1().CertificateSigningRequests().Get(t.Context(), "csr-"+tc.cluster, metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			wasAccepted := tc.cluster == "c1"
			if denied := mc.Spec.HubAcceptsClient != wasAccepted || !clientcsr.Pending(csr); denied != tc.denied {
				t.Errorf("denied = %v (hubAcceptsClient %v, request pending %v), want %v", denied, mc.Spec.HubAcceptsClient, clientcsr.Pending(csr), tc.denied)
			}
		})
	}
}
