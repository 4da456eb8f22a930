package image

import (
	"archive/tar"
	"bytes"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"
)

// file is one entry of the layer: a regular file, or a directory when its
// path ends in "/".
type file struct {
	path string // absolute, in the image
	body []byte
	mode int64
}

// programFiles are the program at path and the shared libraries it loads.
func programFiles(binary, path string) ([]file, error) {
	body, err := os.ReadFile(binary)
	if err != nil {
		return nil, err
	}
	files := []file{{path: path, body: body, mode: 0o755}}
	libs, err := sharedLibraries(binary)
	if err != nil {
		return nil, err
	}
	for _, lib := range libs {
		b, err := os.ReadFile(lib)
		if err != nil {
			return nil, err
		}
		files = append(files, file{path: lib, body: b, mode: 0o755})
	}
	return files, nil
}

// lddPath matches the absolute paths in ldd's output: "libc.so.6 =>
// /lib/x86_64-linux-gnu/libc.so.6 (0x…)" and "/lib64/ld-linux-x86-64.so.2
// (0x…)".
var lddPath = regexp.MustCompile(`(?m)(?:=>\s+|^\s+)(/\S+)\s+\(0x`)

// lddMissing matches a library ldd could not find: "libfoo.so => not found".
var lddMissing = regexp.MustCompile(`(?m)^\s*(\S+) => not found`)

// sharedLibraries lists what a dynamically linked program loads; a static
// one loads nothing.
func sharedLibraries(binary string) ([]string, error) {
	out, err := exec.Command("ldd", binary).CombinedOutput()
	if err != nil {
		if strings.Contains(string(out), "not a dynamic executable") {
			return nil, nil
		}
		return nil, fmt.Errorf("ldd %s: %w: %s", binary, err, strings.TrimSpace(string(out)))
	}
	if missing := lddMissing.FindStringSubmatch(string(out)); missing != nil {
		return nil, fmt.Errorf("%s needs %s, which this machine lacks", binary, missing[1])
	}
	var libs []string
	for _, m := range lddPath.FindAllStringSubmatch(string(out), -1) {
		// The loader is linked by the path the program names, which may be
		// a symlink; the image holds the file itself at that path.
		libs = append(libs, m[1])
	}
	slices.Sort(libs)
	return libs, nil
}

// layerTar is a tar of files with every directory above them, and an
// empty /tmp that anyone may write to (as distroless images have):
// programs expect one, and it is where a read-only root lets them write.
// Entries are sorted by name, so a directory comes before what it holds,
// and dated mtime.
func layerTar(files []file, mtime time.Time) ([]byte, error) {
	entries := map[string]file{"/tmp/": {path: "/tmp/", mode: 0o1777}}
	for _, f := range files {
		entries[f.path] = f
		for d := filepath.Dir(strings.TrimSuffix(f.path, "/")); d != "/"; d = filepath.Dir(d) {
			if _, ok := entries[d+"/"]; !ok {
				entries[d+"/"] = file{path: d + "/", mode: 0o755}
			}
		}
	}
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, p := range slices.Sorted(maps.Keys(entries)) {
		f := entries[p]
		h := &tar.Header{
			Typeflag: tar.TypeReg, Name: strings.TrimPrefix(p, "/"), Mode: f.mode, Size: int64(len(f.body)),
			ModTime: mtime,
		}
		if strings.HasSuffix(p, "/") {
			h.Typeflag, h.Size = tar.TypeDir, 0
		}
		if err := tw.WriteHeader(h); err != nil {
			return nil, err
		}
		if _, err := tw.Write(f.body); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
