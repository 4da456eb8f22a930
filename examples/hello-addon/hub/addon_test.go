package hub

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	certificatesv1 "k8s.io/api/certificates/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	kubefake "k8s.io/client-go/kubernetes/fake"
	"open-cluster-management.io/addon-framework/pkg/agent"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"
	clusterv1 "open-cluster-management.io/api/cluster/v1"

	"github.com/corral-dev/corral/examples/hello-addon/common"
)

func cluster(name string) *clusterv1.ManagedCluster {
	return &clusterv1.ManagedCluster{ObjectMeta: metav1.ObjectMeta{Name: name}}
}

func addon(cluster string, annotations map[string]string) *addonv1beta1.ManagedClusterAddOn {
	return &addonv1beta1.ManagedClusterAddOn{ObjectMeta: metav1.ObjectMeta{
		Name: common.AddonName, Namespace: cluster, UID: "uid-1", Annotations: annotations,
	}}
}

func TestNewAgentAddonRefusesAnEmptyImage(t *testing.T) {
	_, err := NewAgentAddon(kubefake.NewClientset(), noConfigs{}, Options{Image: " "})
	if err == nil || !strings.Contains(err.Error(), "--agent-image") {
		t.Fatalf("err = %v, want one naming --agent-image", err)
	}
}

func TestManifests(t *testing.T) {
	cases := map[string]struct {
		annotations map[string]string
		wantNS      string
	}{
		"default install namespace": {wantNS: common.DefaultInstallNamespace},
		"install namespace from the ManagedClusterAddOn": {
			annotations: map[string]string{addonv1beta1.InstallNamespaceAnnotation: "hello-ns"}, wantNS: "hello-ns",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			a, err := NewAgentAddon(kubefake.NewClientset(), noConfigs{}, Options{Image: "example.com/hello:v1"})
			if err != nil {
				t.Fatal(err)
			}
			objs, err := a.Manifests(context.Background(), cluster("c1"), addon("c1", tc.annotations))
			if err != nil {
				t.Fatal(err)
			}
			var kinds []string
			var deploy *appsv1.Deployment
			for _, o := range objs {
				m, err := metaOf(o)
				if err != nil {
					t.Fatal(err)
				}
				kinds = append(kinds, o.GetObjectKind().GroupVersionKind().Kind)
				if m.GetNamespace() != tc.wantNS {
					t.Errorf("%s %s in namespace %q, want %q", o.GetObjectKind().GroupVersionKind().Kind, m.GetName(), m.GetNamespace(), tc.wantNS)
				}
				if d, ok := o.(*appsv1.Deployment); ok {
					deploy = d
				}
			}
			if diff := cmp.Diff([]string{"Deployment", "Role", "RoleBinding", "ServiceAccount"}, kinds); diff != "" {
				t.Errorf("kinds (-want +got):\n%s", diff)
			}
			if deploy == nil {
				t.Fatal("no Deployment")
			}
			pod := deploy.Spec.Template.Spec
			if got := pod.Containers[0].Image; got != "example.com/hello:v1" {
				t.Errorf("image %q, want the --agent-image", got)
			}
			wantArgs := []string{"agent", "--hub-kubeconfig=/var/run/hub/kubeconfig", "--cluster-name=c1", "--addon-namespace=" + tc.wantNS}
			if diff := cmp.Diff(wantArgs, pod.Containers[0].Args); diff != "" {
				t.Errorf("args (-want +got):\n%s", diff)
			}
			if got := pod.Volumes[0].Secret.SecretName; got != "hello-hub-kubeconfig" {
				t.Errorf("mounts Secret %q, want hello-hub-kubeconfig", got)
			}
			if got := pod.Containers[0].VolumeMounts[0].MountPath; got != "/var/run/hub" {
				t.Errorf("mounts the Secret at %q, want /var/run/hub", got)
			}
		})
	}
}

// metaOf is an object's metadata.
func metaOf(o runtime.Object) (metav1.Object, error) {
	return meta.Accessor(o)
}

func TestRegistration(t *testing.T) {
	a, err := NewAgentAddon(kubefake.NewClientset(), noConfigs{}, Options{Image: "i"})
	if err != nil {
		t.Fatal(err)
	}
	opts := a.GetAgentAddonOptions()
	if opts.HealthProber == nil || opts.HealthProber.Type != agent.HealthProberTypeLease {
		t.Errorf("health prober %+v, want Lease", opts.HealthProber)
	}
	configs, err := opts.Registration.Configurations(context.Background(), cluster("c1"), addon("c1", nil))
	if err != nil {
		t.Fatal(err)
	}
	kc, ok := configs[0].(*agent.KubeClientRegistration)
	if len(configs) != 1 || !ok {
		t.Fatalf("registrations %#v, want one kube-client registration", configs)
	}
	if want := "system:open-cluster-management:cluster:c1:addon:hello:agent:hello-agent"; kc.User != want {
		t.Errorf("user %q, want %q", kc.User, want)
	}
}

// csr is a CSR for the subject cn/orgs requested by username.
func csr(t *testing.T, cn string, orgs []string, username string) *certificatesv1.CertificateSigningRequest {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.CreateCertificateRequest(rand.Reader, &x509.CertificateRequest{Subject: pkix.Name{CommonName: cn, Organization: orgs}}, key)
	if err != nil {
		t.Fatal(err)
	}
	return &certificatesv1.CertificateSigningRequest{
		ObjectMeta: metav1.ObjectMeta{Name: "csr-1"},
		Spec: certificatesv1.CertificateSigningRequestSpec{
			Request:    pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE REQUEST", Bytes: der}),
			SignerName: certificatesv1.KubeAPIServerClientSignerName,
			Username:   username,
		},
	}
}

func TestCSRApproveCheck(t *testing.T) {
	a, err := NewAgentAddon(kubefake.NewClientset(), noConfigs{}, Options{Image: "i"})
	if err != nil {
		t.Fatal(err)
	}
	approve := a.GetAgentAddonOptions().Registration.CSRApproveCheck
	user := agent.DefaultUser("c1", common.AddonName, common.AgentName)
	groups := agent.DefaultGroups("c1", common.AddonName)
	cases := map[string]struct {
		req  *certificatesv1.CertificateSigningRequest
		want bool
	}{
		"the addon's subject, asked by the cluster's agent": {
			req: csr(t, user, groups, "system:open-cluster-management:c1:agent-x"), want: true,
		},
		"asked by another cluster whose name starts the same": {
			req: csr(t, user, groups, "system:open-cluster-management:c10:agent-x"),
		},
		"asked by someone else": {
			req: csr(t, user, groups, "alice"),
		},
		"another agent name": {
			req: csr(t, agent.DefaultUser("c1", common.AddonName, "other"), groups, "system:open-cluster-management:c1:agent-x"),
		},
		"another cluster's subject": {
			req: csr(t, agent.DefaultUser("c2", common.AddonName, common.AgentName), agent.DefaultGroups("c2", common.AddonName),
				"system:open-cluster-management:c1:agent-x"),
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := approve(context.Background(), cluster("c1"), addon("c1", nil), tc.req); got != tc.want {
				t.Errorf("approve = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestPermissionConfig(t *testing.T) {
	kube := kubefake.NewClientset()
	a, err := NewAgentAddon(kube, noConfigs{}, Options{Image: "i"})
	if err != nil {
		t.Fatal(err)
	}
	configure := a.GetAgentAddonOptions().Registration.PermissionConfig
	for _, c := range []string{"c1", "c2"} {
		if err := configure(context.Background(), cluster(c), addon(c, nil)); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []string{"c1", "c2"} {
		role, err := kube.RbacV1().Roles(c).Get(context.Background(), HubRoleName, metav1.GetOptions{})
		if err != nil {
			t.Fatalf("the Role in %s: %v", c, err)
		}
		if diff := cmp.Diff(hubRole().Rules, role.Rules); diff != "" {
			t.Errorf("rules in %s (-want +got):\n%s", c, diff)
		}
		if len(role.OwnerReferences) != 1 || role.OwnerReferences[0].Kind != "ManagedClusterAddOn" {
			t.Errorf("the Role in %s is owned by %v, want the ManagedClusterAddOn", c, role.OwnerReferences)
		}
		binding, err := kube.RbacV1().RoleBindings(c).Get(context.Background(), HubRoleName, metav1.GetOptions{})
		if err != nil {
			t.Fatalf("the RoleBinding in %s: %v", c, err)
		}
		want := []rbacv1.Subject{{Kind: rbacv1.GroupKind, Name: "system:open-cluster-management:cluster:" + c + ":addon:hello"}}
		if diff := cmp.Diff(want, binding.Subjects); diff != "" {
			t.Errorf("subjects in %s: only that cluster's hello agent (-want +got):\n%s", c, diff)
		}
	}
}

// noConfigs is a hub without AddOnDeploymentConfigs.
type noConfigs map[string]*addonv1beta1.AddOnDeploymentConfig

func (c noConfigs) Get(_ context.Context, namespace, name string) (*addonv1beta1.AddOnDeploymentConfig, error) {
	if adc, ok := c[namespace+"/"+name]; ok {
		return adc, nil
	}
	return nil, apierrors.NewNotFound(schema.GroupResource{Group: addonv1beta1.GroupName, Resource: "addondeploymentconfigs"}, name)
}

func TestManifestsTakeTheIntervalFromTheAddonsConfig(t *testing.T) {
	withConfig := func(interval string) (*addonv1beta1.ManagedClusterAddOn, noConfigs) {
		mca := addon("c1", nil)
		mca.Status.ConfigReferences = []addonv1beta1.ConfigReference{{
			ConfigGroupResource: addonv1beta1.ConfigGroupResource{Group: addonv1beta1.GroupName, Resource: "addondeploymentconfigs"},
			DesiredConfig:       &addonv1beta1.ConfigSpecHash{ConfigReferent: addonv1beta1.ConfigReferent{Namespace: "ns", Name: "hello-config"}, SpecHash: "h1"},
		}}
		adc := &addonv1beta1.AddOnDeploymentConfig{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "hello-config"},
			Spec: addonv1beta1.AddOnDeploymentConfigSpec{CustomizedVariables: []addonv1beta1.CustomizedVariable{{Name: IntervalVariable, Value: interval}}}}
		return mca, noConfigs{"ns/hello-config": adc}
	}
	mca, configs := withConfig("1m")
	a, err := NewAgentAddon(kubefake.NewClientset(), configs, Options{Image: "i"})
	if err != nil {
		t.Fatal(err)
	}
	objs, err := a.Manifests(context.Background(), cluster("c1"), mca)
	if err != nil {
		t.Fatal(err)
	}
	var args []string
	for _, o := range objs {
		if d, ok := o.(*appsv1.Deployment); ok {
			args = d.Spec.Template.Spec.Containers[0].Args
		}
	}
	if !slices.Contains(args, "--interval=1m") {
		t.Errorf("agent args %q, want --interval=1m from the config", args)
	}

	mca, configs = withConfig("soon")
	a, err = NewAgentAddon(kubefake.NewClientset(), configs, Options{Image: "i"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Manifests(context.Background(), cluster("c1"), mca); err == nil || !strings.Contains(err.Error(), `Interval is "soon"`) {
		t.Errorf("err = %v, want one naming the bad Interval", err)
	}
}
