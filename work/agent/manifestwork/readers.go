package manifestwork

import (
	"sync"

	"github.com/corral-dev/corral/work/agent/apply"
)

// readIndex knows which works read which objects without owning them
// (ReadOnly manifests): a change to such an object must bring those works
// back, and its owner references cannot name them.
type readIndex struct {
	mu     sync.Mutex
	byKey  map[apply.Key]map[string]bool
	byWork map[string][]apply.Key
}

func newReadIndex() *readIndex {
	return &readIndex{byKey: map[apply.Key]map[string]bool{}, byWork: map[string][]apply.Key{}}
}

// set records that work reads exactly keys now; none once it is gone.
func (x *readIndex) set(work string, keys []apply.Key) {
	x.mu.Lock()
	defer x.mu.Unlock()
	for _, k := range x.byWork[work] {
		delete(x.byKey[k], work)
		if len(x.byKey[k]) == 0 {
			delete(x.byKey, k)
		}
	}
	delete(x.byWork, work)
	if len(keys) == 0 {
		return
	}
	x.byWork[work] = keys
	for _, k := range keys {
		if x.byKey[k] == nil {
			x.byKey[k] = map[string]bool{}
		}
		x.byKey[k][work] = true
	}
}

// of lists the works reading key.
func (x *readIndex) of(key apply.Key) []string {
	x.mu.Lock()
	defer x.mu.Unlock()
	works := make([]string, 0, len(x.byKey[key]))
	for w := range x.byKey[key] {
		works = append(works, w)
	}
	return works
}
