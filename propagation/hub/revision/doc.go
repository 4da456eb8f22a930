// Package revision computes what a propagation revision holds, as pure
// functions over the objects its selectors matched: Skipped says which
// must never be selected, Clean strips what must not travel to a cluster,
// Sort puts them in dependency order, Hash names the result (a new
// revision is made when it changes), Manifests encodes them as they
// travel, and Split shares them over ManifestWorks under the size cap.
//
// It reads and writes nothing; the propagation hub controllers call it.
package revision
