package fleet

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"syscall"

	"github.com/corral-dev/corral/internal/devdir"
)

// DirEnv names the environment variable that sets the default fleet
// directory.
const DirEnv = devdir.Env

// DefaultDir is $CORRAL_DEV_DIR, else ~/.corral/dev.
func DefaultDir() string { return devdir.Dir() }

// ours reports whether a fleet directory entry is one a fleet creates.
func ours(name string) bool {
	switch name {
	case ".lock", stateFile, stateFile + ".tmp", LogFile, ControllersLogFile, howtoFile, HubName, imagesDir:
		return true
	}
	return managedDirName.MatchString(name)
}

// managedDirName matches the directories ClusterNames gives managed clusters.
var managedDirName = regexp.MustCompile(`^cluster[1-9][0-9]*$`)

// CheckDirUsable refuses a directory that holds files a fleet did not put
// there, so that a mistyped --dir never turns into a deleted home directory.
func CheckDirUsable(dir string) error {
	entries, err := readDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if !ours(e.Name()) {
			return fmt.Errorf("--dir %s holds %s, which is not a fleet's: pick an empty or new directory", dir, e.Name())
		}
	}
	return nil
}

// RemoveDir removes what a fleet created in dir, and dir if that empties it.
func RemoveDir(dir string) error {
	entries, err := readDir(dir)
	if err != nil || entries == nil {
		return err
	}
	for _, e := range entries {
		if ours(e.Name()) {
			if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
				return err
			}
		}
	}
	if err := os.Remove(dir); err != nil && !errors.Is(err, syscall.ENOTEMPTY) {
		return err
	}
	return nil
}

// readDir lists dir; a missing dir lists nothing.
func readDir(dir string) ([]os.DirEntry, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return entries, err
}
