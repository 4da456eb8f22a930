package manifestwork

import (
	"crypto/sha256"
	"encoding/json"
	"sync"

	"k8s.io/apimachinery/pkg/types"
)

// writeMemo remembers, per object, a digest of what the agent last wrote
// to it, so that a reconcile reading the object from a cache that has not
// seen that write yet does not write the same thing again (and, with an
// optimistic lock, fail on the stale resourceVersion).
type writeMemo struct {
	mu      sync.Mutex
	written map[types.UID][sha256.Size]byte
}

func newWriteMemo() *writeMemo {
	return &writeMemo{written: map[types.UID][sha256.Size]byte{}}
}

// seen says whether v is what was last written to the object with uid,
// remembering it if not. What cannot be digested is never seen.
func (m *writeMemo) seen(uid types.UID, v any) bool {
	raw, err := json.Marshal(v)
	if err != nil {
		return false
	}
	sum := sha256.Sum256(raw)
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.written[uid] == sum {
		return true
	}
	m.written[uid] = sum
	return false
}

// forget drops what is remembered of the object with uid: after a failed
// write, or once the object is gone.
func (m *writeMemo) forget(uid types.UID) {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.written, uid)
}
