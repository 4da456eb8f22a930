// Package version says which build of corral this is: the version and
// commit the build stamped in (make build sets them), else what the Go
// toolchain recorded of the module and its VCS state. `corral version`
// prints it; images and installs label themselves with it.
package version

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
)

// Set at build time with -ldflags "-X <this package>.version=… -X …commit=…".
var (
	version = ""
	commit  = ""
)

// Info is what a build knows of itself.
type Info struct {
	Version   string `json:"version"`
	Commit    string `json:"commit"`
	GoVersion string `json:"goVersion"`
	Platform  string `json:"platform"`
}

// String is the one line `corral version` prints.
func (i Info) String() string {
	return fmt.Sprintf("corral %s (commit %s, %s, %s)", i.Version, i.Commit, i.GoVersion, i.Platform)
}

// Get returns this build's Info.
func Get() Info {
	return get(version, commit, debug.ReadBuildInfo)
}

func get(stampedVersion, stampedCommit string, read func() (*debug.BuildInfo, bool)) Info {
	i := Info{Version: stampedVersion, Commit: stampedCommit, GoVersion: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
	if bi, ok := read(); ok {
		if i.Version == "" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			i.Version = bi.Main.Version
		}
		if i.Commit == "" {
			i.Commit = vcsCommit(bi.Settings)
		}
	}
	if i.Version == "" {
		i.Version = "dev"
	}
	// The version is an image tag and a label value, where '+' (semver
	// build metadata, as Go's "+dirty") is not allowed.
	i.Version = strings.ReplaceAll(i.Version, "+", "-")
	if i.Commit == "" {
		i.Commit = "unknown"
	}
	return i
}

// vcsCommit is the revision the toolchain recorded, marked "-dirty" when
// the tree had uncommitted changes.
func vcsCommit(settings []debug.BuildSetting) string {
	var rev, modified string
	for _, s := range settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			modified = s.Value
		}
	}
	if rev != "" && modified == "true" {
		rev += "-dirty"
	}
	return rev
}
