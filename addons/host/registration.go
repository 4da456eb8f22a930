package host

import (
	"context"
	"crypto/sha256"
	"crypto/x509/pkix"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	certificatesv1 "k8s.io/api/certificates/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"
)

// Keys of an addon's credential Secret, as OCM's agent writes them.
const (
	KeyKubeconfig  = "kubeconfig"
	KeyCert        = "tls.crt"
	KeyKey         = "tls.key"
	KeyClusterName = "cluster-name"
)

const (
	kubeClientSigner = certificatesv1.KubeAPIServerClientSignerName
	addonLabelKey    = addonv1beta1.AddonLabelKey
)

// want is one registration an addon declares: which signer, which subject,
// and where its Secret goes.
type want struct {
	addon      string
	signer     string
	subject    pkix.Name
	namespace  string
	secretName string
}

// key identifies a registration: a change of any of its parts is a new
// registration (the old Secret goes, a new one is made).
func (w want) key() string {
	b, _ := json.Marshal([]any{w.signer, w.subject.CommonName, w.subject.Organization, w.subject.OrganizationalUnit, w.namespace})
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// kubeClient says whether the registration is for a hub kubeconfig.
func (w want) kubeClient() bool { return w.signer == kubeClientSigner }

// SecretName is where OCM's agent writes the credentials of a
// registration with signer for addon.
func SecretName(addon, signer string) string {
	if signer == kubeClientSigner {
		return addon + "-hub-kubeconfig"
	}
	return addon + "-" + strings.ReplaceAll(signer, "/", "-") + "-client-cert"
}

// DefaultSubject is the subject OCM's agent asks for when a registration
// names none: user …:addon:<addon>:agent:<agent>, and, for a hub
// kubeconfig, the group system:open-cluster-management:cluster:<c>:addon:<a>.
func DefaultSubject(cluster, addon, agent, signer string) pkix.Name {
	org := fmt.Sprintf("system:open-cluster-management:cluster:%s:addon:%s", cluster, addon)
	s := pkix.Name{CommonName: org + ":agent:" + agent}
	if signer == kubeClientSigner {
		s.Organization = []string{org}
	}
	return s
}

// wants reads the registrations an addon declares in its status.
func (h *Host) wants(mca *addonv1beta1.ManagedClusterAddOn) []want {
	ns := installNamespace(mca)
	var out []want
	for _, reg := range mca.Status.Registrations {
		w := want{addon: mca.Name, namespace: ns}
		switch {
		case reg.Type == addonv1beta1.KubeClient:
			w.signer = kubeClientSigner
			if reg.KubeClient != nil {
				w.subject = pkix.Name{CommonName: reg.KubeClient.Subject.User, Organization: reg.KubeClient.Subject.Groups}
			}
		case reg.Type == addonv1beta1.CustomSigner && reg.CustomSigner != nil && reg.CustomSigner.SignerName != "":
			w.signer = reg.CustomSigner.SignerName
			s := reg.CustomSigner.Subject
			w.subject = pkix.Name{CommonName: s.User, Organization: s.Groups, OrganizationalUnit: s.OrganizationUnits}
		default:
			continue
		}
		def := DefaultSubject(h.opts.ClusterName, mca.Name, h.opts.AgentName, w.signer)
		if w.subject.CommonName == "" {
			w.subject.CommonName = def.CommonName
		}
		if len(w.subject.Organization) == 0 {
			w.subject.Organization = def.Organization
		}
		w.secretName = SecretName(mca.Name, w.signer)
		out = append(out, w)
	}
	return out
}

// errUnconverted says that the hub answered a v1beta1 read with the stored
// v1alpha1 object unconverted: the api module's CRDs serve both versions
// but leave conversion to OCM's addon webhook.
var errUnconverted = errors.New("a registration in its status has no type: the hub serves ManagedClusterAddOns as v1beta1 " +
	"without converting them from the stored v1alpha1; the hub needs OCM's addon conversion webhook " +
	"(OCM's cluster manager installs it; a corral hub serves it itself)")

// unconverted says whether mca's registrations betray an unconverted
// v1alpha1 object: v1beta1 requires every registration's type.
func unconverted(mca *addonv1beta1.ManagedClusterAddOn) bool {
	for _, reg := range mca.Status.Registrations {
		if reg.Type == "" {
			return true
		}
	}
	return false
}

// KubeClientDriver is how the host gets an addon its hub kubeconfig: with
// a CSR. It declares so on each kubeClient registration (the api's
// `driver`, v1alpha1's `status.kubeClientDriver`), as OCM's agent does:
// the hub's side reads it (the addon framework then keeps or fills in the
// subject; OCM's token infrastructure leaves the addon alone).
const KubeClientDriver = "csr"

// declareDriver sets KubeClientDriver on every kubeClient registration of
// the addon that does not say it yet, and says whether it wrote.
func (h *Host) declareDriver(ctx context.Context, mca *addonv1beta1.ManagedClusterAddOn) (bool, error) {
	if driverDeclared(mca) {
		return false, nil
	}
	changed, err := h.updateStatus(ctx, mca.Name, setDriver)
	if err != nil {
		return false, errorf(mca.Name, "declaring its kubeClient driver", err)
	}
	if changed {
		log(ctx).V(1).Info("Declared the addon's kubeClient driver", "addon", mca.Name, "driver", KubeClientDriver)
	}
	return changed, nil
}

// driverDeclared says whether every kubeClient registration of mca says
// KubeClientDriver.
func driverDeclared(mca *addonv1beta1.ManagedClusterAddOn) bool {
	for _, reg := range mca.Status.Registrations {
		if reg.Type == addonv1beta1.KubeClient && (reg.KubeClient == nil || reg.KubeClient.Driver != KubeClientDriver) {
			return false
		}
	}
	return true
}

// setDriver sets KubeClientDriver on mca's kubeClient registrations and
// says whether that changed any.
func setDriver(mca *addonv1beta1.ManagedClusterAddOn) bool {
	if driverDeclared(mca) {
		return false
	}
	for i := range mca.Status.Registrations {
		reg := &mca.Status.Registrations[i]
		if reg.Type != addonv1beta1.KubeClient {
			continue
		}
		if reg.KubeClient == nil {
			reg.KubeClient = &addonv1beta1.KubeClientConfig{}
		}
		reg.KubeClient.Driver = KubeClientDriver
	}
	return true
}

// syncRegistrations starts a certificate loop for every new registration
// of the addon and stops (and deletes the Secret of) every stale one.
func (h *Host) syncRegistrations(ctx context.Context, st *addonState, mca *addonv1beta1.ManagedClusterAddOn) error {
	wanted := map[string]want{}
	for _, w := range h.wants(mca) {
		wanted[w.key()] = w
	}
	var errs []error
	for key, r := range st.registrations {
		if _, ok := wanted[key]; ok {
			r.kick()
			continue
		}
		if err := h.stopRegistration(ctx, r); err != nil {
			errs = append(errs, err)
			continue
		}
		delete(st.registrations, key)
	}
	for key, w := range wanted {
		if _, ok := st.registrations[key]; ok {
			continue
		}
		log(ctx).V(1).Info("Starting the addon's registration", "addon", w.addon, "signer", w.signer,
			"subject", w.subject.CommonName, "secret", w.namespace+"/"+w.secretName)
		st.registrations[key] = h.startRegistration(ctx, w)
	}
	return errors.Join(errs...)
}

// stopRegistration stops the loop and deletes the Secret it kept.
func (h *Host) stopRegistration(ctx context.Context, r *registration) error {
	r.stop()
	err := h.managed.CoreV1().Secrets(r.want.namespace).Delete(ctx, r.want.secretName, metav1.DeleteOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		return errorf(r.want.addon, "deleting Secret "+r.want.namespace+"/"+r.want.secretName, err)
	}
	log(ctx).V(1).Info("Stopped the addon's registration and removed its Secret", "addon", r.want.addon,
		"secret", r.want.namespace+"/"+r.want.secretName)
	return nil
}

// kubeClientCredentials returns the addon's current hub kubeconfig
// credentials, if a registration has them.
func (st *addonState) kubeClientCredentials() *credentials {
	for _, r := range st.registrations {
		if r.want.kubeClient() {
			return r.current()
		}
	}
	return nil
}
