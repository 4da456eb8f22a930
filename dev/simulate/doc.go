// Package simulate runs simulated managed clusters against a hub, so that
// anyone can find out what their hub holds before production does.
//
// Each simulated cluster speaks the registration protocol as an agent
// does, with no API server of its own: with the bootstrap token it
// creates its ManagedCluster (labelled Label, so that it is never taken
// for a real cluster) and a join request (CSR) for a client certificate;
// once accepted (by the simulator as `corral accept` does, with Accept,
// or by someone else) it takes the certificate the hub's signer issues
// and reports Joined and Available (with a version, capacity and an id
// claim) with that identity. From then on it renews its lease every
// lease period from its join, and its work agent reports the
// ManifestWorks in its namespace applied and available; those requests
// go over the admin's connection impersonating the certificate's subject
// (see agent), so that a cluster costs the simulator a name and a lease,
// and no connection. The simulator waits for certificates, acceptances
// and works through shared watches where each agent would watch its own.
//
// At the end it reports joins per second, the hub's reaction to
// acceptances, how late the lease renewals were, how many times the hub
// marked a heartbeating cluster's availability Unknown (a false Unknown),
// an outage's timings (Options.Unreachable), what a cluster cost the
// simulator, and the hub processes' CPU and memory (Options.HubPIDs);
// then it deletes what it made unless told to keep it.
package simulate
