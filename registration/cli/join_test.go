package cli

import (
	"io"
	"strings"
	"testing"

	"github.com/corral-dev/corral/addons"
)

// TestJoinRefusesFlagsItWouldIgnore: the install's flags are refused for an
// agent run here (--deploy=false), and --addons must name built-ins, before
// anything is asked of a hub.
func TestJoinRefusesFlagsItWouldIgnore(t *testing.T) {
	for name, tc := range map[string]struct {
		set  func(*JoinOptions)
		want string
	}{
		"an image for an agent run here":    {func(o *JoinOptions) { o.Deploy, o.Install.Image = false, "r/corral:v1" }, "--image and --replicas are for an installed agent"},
		"replicas for an agent run here":    {func(o *JoinOptions) { o.Deploy, o.Install.Replicas = false, 3 }, "--image and --replicas are for an installed agent"},
		"an addon there is none of":         {func(o *JoinOptions) { o.Install.Addons = []string{"bogus"} }, "--addons: "},
		"an addon, run here, none of those": {func(o *JoinOptions) { o.Deploy, o.Install.Addons = false, []string{"bogus"} }, "--addons: "},
	} {
		o := NewJoinOptions(io.Discard, addons.Addon{Name: "work"})
		o.HubAPIServer, o.HubToken, o.ClusterName = "https://hub.example:6443", "t", "c1"
		tc.set(o)
		if err := o.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error saying %q", name, err, tc.want)
		}
	}
}
