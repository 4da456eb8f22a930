// Package host is the addon half of `corral agent`: what OCM's registration
// agent does for addons, plus running corral's built-in addon agents
// in-process.
//
// It watches the ManagedClusterAddOns (v1beta1, the version the hub's
// addon-framework writes) in the cluster's namespace on the hub, as the
// registration agent's hub identity, and for each one:
//
//   - declares, on every kubeClient registration, the driver it uses
//     (KubeClientDriver, csr), as the api says the agent does (OCM's agent
//     also clears it once no kubeClient registration is left; the host
//     leaves it);
//   - for every registration in status.registrations, creates a CSR for a
//     fresh key (signer kubernetes.io/kube-apiserver-client or the custom
//     signer, the registration's subject or OCM's default one, labels
//     open-cluster-management.io/cluster-name and
//     open-cluster-management.io/addon-name), waits until it is signed and
//     writes the `<addon>-hub-kubeconfig` Secret (or
//     `<addon>-<signer>-client-cert`) into the addon's install namespace on
//     the managed cluster, creating the namespace when missing; it asks for
//     a new certificate at clientcsr.RotateAt of the old one's life, and
//     deletes the Secret when the registration or the addon goes;
//   - turns the Lease named after the addon in its install namespace on the
//     managed cluster into the addon's Available condition, with OCM's
//     reasons (unless the addon's health check mode is Customized);
//   - for a built-in addon (an addons.Addon with RunAgent), runs RunAgent
//     once its hub kubeconfig is written, with that identity, and stops it
//     when the ManagedClusterAddOn goes. A run that fails or panics is
//     recovered and restarted with backoff, and reported as Degraded with
//     reason AgentCrashed on the addon (and an Event); the host and the
//     other addons go on.
//
// An addon whose registrations have no type is left alone, with an error
// saying why: the hub handed over its stored v1alpha1 object unconverted
// (an OCM hub without its addon conversion webhook), and writing it back
// would lose its registrations.
//
// Run runs all of it; RunAgents runs only built-in agent halves against a
// given hub kubeconfig, with no registration (`--no-registration`).
package host
