package simulate

import (
	"context"
	"sync"
)

// mailbox hands values to whoever waits for their key, whichever comes
// first; a value taken is forgotten.
type mailbox[V any] struct {
	mu      sync.Mutex
	got     map[string]V
	waiters map[string]chan V
}

func newMailbox[V any]() *mailbox[V] {
	return &mailbox[V]{got: map[string]V{}, waiters: map[string]chan V{}}
}

func (m *mailbox[V]) put(key string, v V) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if ch, ok := m.waiters[key]; ok {
		ch <- v
		delete(m.waiters, key)
		return
	}
	m.got[key] = v
}

func (m *mailbox[V]) wait(ctx context.Context, key string) (V, error) {
	m.mu.Lock()
	if v, ok := m.got[key]; ok {
		delete(m.got, key)
		m.mu.Unlock()
		return v, nil
	}
	ch := make(chan V, 1)
	m.waiters[key] = ch
	m.mu.Unlock()
	select {
	case v := <-ch:
		return v, nil
	case <-ctx.Done():
		var zero V
		return zero, ctx.Err()
	}
}
