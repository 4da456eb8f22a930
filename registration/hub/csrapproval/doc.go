// Package csrapproval approves the client certificate requests the hub
// itself may approve: a renewal by an accepted cluster's current identity
// (the requester is the certificate's own common name and may `renew`
// managedclusters/clientcertificates), and, only for requesters named in
// AutoApproveUsers, a first join of an accepted cluster that no live agent
// holds (as `corral accept`, it never hands a held cluster's name to a
// second agent). A first join is otherwise approved by a hub admin with
// `corral accept`.
//
// Everything else stays pending, with an event on the CSR saying why. It
// watches CSRs for kubernetes.io/kube-apiserver-client labelled with a
// cluster name but not with an addon name (an addon agent's request, which
// the addon manager decides on, gets no event here), and ManagedClusters whose spec.hubAcceptsClient turns true
// (mapped to their CSRs, which may now be approved); it writes CSR
// approvals and events.
package csrapproval
