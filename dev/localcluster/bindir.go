package localcluster

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// BinDirEnv names the environment variable that overrides where the
// Kubernetes binaries are looked for.
const BinDirEnv = "CORRAL_BIN_DIR"

// Binaries are the executables a local cluster needs in its bin directory.
var Binaries = []string{"etcd", "kube-apiserver", "kube-controller-manager", "kube-scheduler", "kwok"}

// ErrToolsMissing is wrapped by the errors that say a binary is missing.
var ErrToolsMissing = errors.New("kubernetes binaries are missing: run make tools")

// FindBinDir finds the directory with the binaries `make tools` builds: the
// one $CORRAL_BIN_DIR names, else the directory of the running executable
// (bin/corral sits beside them), else bin/ in the first directory upwards
// from the working directory that has a go.mod.
func FindBinDir() (string, error) {
	if dir := os.Getenv(BinDirEnv); dir != "" {
		return dir, CheckBinDir(dir)
	}
	var candidates []string
	if exe, err := os.Executable(); err == nil {
		candidates = append(candidates, filepath.Dir(exe))
	}
	if wd, err := os.Getwd(); err == nil {
		for dir := wd; ; dir = filepath.Dir(dir) {
			if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
				candidates = append(candidates, filepath.Join(dir, "bin"))
			}
			if filepath.Dir(dir) == dir {
				break
			}
		}
	}
	for _, dir := range candidates {
		if CheckBinDir(dir) == nil {
			return dir, nil
		}
	}
	return "", fmt.Errorf("%w (looked in %v; or set %s)", ErrToolsMissing, candidates, BinDirEnv)
}

// CheckBinDir reports the first binary missing from dir.
func CheckBinDir(dir string) error {
	for _, name := range Binaries {
		if _, err := exec.LookPath(filepath.Join(dir, name)); err != nil {
			return fmt.Errorf("%w (%s not found in %s)", ErrToolsMissing, name, dir)
		}
	}
	return nil
}
