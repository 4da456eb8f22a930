package image

import (
	"archive/tar"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// file is one entry of the layer.
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
	sort.Strings(libs)
	return libs, nil
}

// layerTar is a tar of files with every directory above them, and an
// empty /tmp (as distroless images have): programs expect one to write to.
func layerTar(files []file) ([]byte, error) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: "tmp/", Mode: 0o1777}); err != nil {
		return nil, err
	}
	dirs := map[string]bool{"/tmp": true}
	for _, f := range files {
		var parents []string
		for d := filepath.Dir(f.path); d != "/" && !dirs[d]; d = filepath.Dir(d) {
			parents = append(parents, d)
			dirs[d] = true
		}
		for i := len(parents) - 1; i >= 0; i-- {
			if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: strings.TrimPrefix(parents[i], "/") + "/", Mode: 0o755}); err != nil {
				return nil, err
			}
		}
		if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: strings.TrimPrefix(f.path, "/"), Mode: f.mode, Size: int64(len(f.body))}); err != nil {
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
