// Package devdir says where a local fleet (`corral dev up`) keeps its
// clusters by default, for the fleet itself and for the verbs that point a
// user without a kubeconfig at it.
package devdir

import (
	"os"
	"path/filepath"
)

// Env overrides the default directory.
const Env = "CORRAL_DEV_DIR"

// Dir is $CORRAL_DEV_DIR, else ~/.corral/dev.
func Dir() string {
	if d := os.Getenv(Env); d != "" {
		return d
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return ".corral/dev"
	}
	return filepath.Join(home, ".corral", "dev")
}
