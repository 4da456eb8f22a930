// Package builder makes the objects corral's tests put on a hub: a
// ManagedCluster (Cluster), a ManagedClusterAddOn (AddOn), a ManifestWork
// (Work), a Placement, a Lease and a CertificateSigningRequest (CSR), each
// with a fluent builder:
//
//	builder.Cluster("c1").InSet("prod").Accepted().Taint("gpu", "", clusterv1.TaintEffectNoSelect, at).Obj()
//
// It owns the shape of those test objects, so that a package's tests say
// what is special about each object and not how to spell it; a test
// fixture that also creates the object, or fills in a package's usual
// defaults, stays beside its tests and builds with this.
//
// A builder starts from the name alone and adds only what it is told: a map
// or list no method touched stays nil, and a condition is kept as given
// (no LastTransitionTime is made up), so an object built twice is the same
// object. Obj returns a copy, so one builder can go on to make a variant.
//
// Tests alone import it: unit tests of any package, and the integration and
// interop suites. Product code never does (TestOnlyTestsImportBuilders).
package builder
