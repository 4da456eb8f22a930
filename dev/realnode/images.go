package realnode

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"strings"
)

// Import loads image archives (docker save, or OCI layout tars) into the
// node's containerd, where its pods find them: nothing is pulled here.
func (n Node) Import(ctx context.Context, archives ...string) error {
	for _, a := range archives {
		var out bytes.Buffer
		cmd := exec.CommandContext(ctx, "ctr", "--address", n.Socket(), "--namespace", "k8s.io", "images", "import", a)
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("importing %s into node %s: %w: %s", a, n.Name, err, strings.TrimSpace(out.String()))
		}
	}
	return nil
}
