// Package clientgates sets client-go's feature gates for corral's
// processes.
//
// client-go 1.35 turns WatchListClient on: informers fill their caches
// with a streaming watch rather than a list, and an informer has synced
// only when the API server's bookmark ending the initial events arrives.
// The API server sends that bookmark on its own timer, about once a
// second, so every wave of informers a process starts waits a second or
// more on an idle hub: a hub accepting its first cluster 2.4 s after it
// starts rather than 0.4 s, and every controller start, addon restart and
// test paying the same. A list costs the API server more memory only for
// very large collections, which a hub's are not.
package clientgates

import (
	"os"

	clientfeatures "k8s.io/client-go/features"
)

// watchListEnv is the variable client-go reads the gate from; when it is
// set, the user's choice stands.
const watchListEnv = "KUBE_FEATURE_" + string(clientfeatures.WatchListClient)

// Set turns WatchListClient off unless KUBE_FEATURE_WatchListClient is
// set. Call it before any client is made.
func Set() {
	if _, chosen := os.LookupEnv(watchListEnv); chosen {
		return
	}
	clientfeatures.ReplaceFeatureGates(withoutWatchList{clientfeatures.FeatureGates()})
}

type withoutWatchList struct{ clientfeatures.Gates }

func (g withoutWatchList) Enabled(f clientfeatures.Feature) bool {
	return f != clientfeatures.WatchListClient && g.Gates.Enabled(f)
}
