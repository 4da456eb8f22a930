package manifestwork

import (
	"slices"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/corral-dev/corral/work/agent/apply"
)

func TestReadIndexFollowsWhatEachWorkReads(t *testing.T) {
	key := func(name string) apply.Key {
		return apply.Key{GVR: schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}, Namespace: "ns", Name: name}
	}
	x := newReadIndex()
	x.set("w1", []apply.Key{key("a"), key("b")})
	x.set("w2", []apply.Key{key("a")})
	if got := x.of(key("a")); !slices.Equal(slices.Sorted(slices.Values(got)), []string{"w1", "w2"}) {
		t.Errorf("readers of a: %v, want w1 and w2", got)
	}
	x.set("w1", []apply.Key{key("b")})
	if got := x.of(key("a")); !slices.Equal(got, []string{"w2"}) {
		t.Errorf("readers of a after w1 dropped it: %v, want w2", got)
	}
	x.set("w1", nil)
	x.set("w2", nil)
	if len(x.byKey) != 0 || len(x.byWork) != 0 {
		t.Errorf("works that read nothing are still indexed: %v %v", x.byKey, x.byWork)
	}
}
