// Package fleet runs a local fleet for development and end-to-end tests: one
// hub and N managed clusters, each a localcluster, all in one directory.
//
// Run is the body of the supervisor process that `corral dev up` starts in
// the background: it owns every control plane process (they die with it),
// records what runs in <dir>/fleet.json and stops everything when it is told
// to. Status reads that record and checks the processes and API servers it
// names, so any process can ask how the fleet is doing.
package fleet
