// Package simulate runs simulated managed clusters against a hub, so that
// anyone can find out what their hub holds before production does.
//
// Each simulated cluster speaks the registration protocol as an agent
// does, with no API server of its own: with the bootstrap token it
// creates its ManagedCluster (labelled Label, so that it is never taken
// for a real cluster) and a join request (CSR) for a client certificate;
// once accepted (by the simulator as `corral accept` does, with Accept,
// or by someone else) it takes the certificate the hub's signer issues,
// reports Joined and Available with that identity, and renews its lease
// every lease period until the run ends. The simulator waits for
// certificates and acceptances through two shared watches where an agent
// polls, so that N clusters' polling does not load the API server being
// measured; each cluster still makes its own requests with its own
// identity.
//
// At the end it reports joins per second, how late the lease renewals
// were, and how many times the hub marked a heartbeating cluster's
// availability Unknown (a false Unknown), then deletes what it made
// unless told to keep it.
package simulate
