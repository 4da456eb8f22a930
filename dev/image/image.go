// Package image writes container images as archives a container runtime
// imports — the format `docker save` writes and `ctr images import` reads —
// so that the local fleet runs programs built here, with no registry.
//
// An image is one layer holding one program, an empty /tmp and, when the
// program is dynamically linked, the shared libraries it loads (as ldd
// lists them); a statically linked program makes an image FROM scratch.
package image

import (
	"archive/tar"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strings"
)

// Spec says what image to make.
type Spec struct {
	// Ref names the image, as pods name it: "localhost/corral/pause:dev".
	Ref string
	// Binary is the program, copied to /Path in the image.
	Binary string
	// Path is where the program lives in the image; empty means
	// /<base name of Binary>.
	Path string
	// Cmd, when set, is what the image runs, and it has no entrypoint: for
	// programs whose pods give the whole command line as args. Otherwise
	// the program is the entrypoint, and a pod's args are its arguments.
	Cmd []string
}

// file is one entry of the layer.
type file struct {
	path string // absolute, in the image
	body []byte
	mode int64
}

// Write writes the image archive of spec to w.
func Write(w io.Writer, spec Spec) error {
	if spec.Ref == "" || spec.Binary == "" {
		return fmt.Errorf("an image needs a name and a program")
	}
	path := spec.Path
	if path == "" {
		path = "/" + filepath.Base(spec.Binary)
	}
	files, err := programFiles(spec.Binary, path)
	if err != nil {
		return err
	}
	layer, err := layerTar(files)
	if err != nil {
		return err
	}
	layerDigest := digest(layer)
	run := map[string]any{"Entrypoint": []string{path}}
	if len(spec.Cmd) > 0 {
		run = map[string]any{"Cmd": spec.Cmd}
	}
	config, err := json.Marshal(map[string]any{
		"architecture": runtime.GOARCH,
		"os":           "linux",
		"config":       run,
		"rootfs":       map[string]any{"type": "layers", "diff_ids": []string{"sha256:" + layerDigest}},
	})
	if err != nil {
		return err
	}
	configName := digest(config) + ".json"
	layerName := layerDigest + "/layer.tar"
	manifest, err := json.Marshal([]map[string]any{{
		"Config": configName, "RepoTags": []string{spec.Ref}, "Layers": []string{layerName},
	}})
	if err != nil {
		return err
	}
	tw := tar.NewWriter(w)
	for _, e := range []struct {
		name string
		body []byte
	}{{layerName, layer}, {configName, config}, {"manifest.json", manifest}} {
		if err := tw.WriteHeader(&tar.Header{Name: e.name, Mode: 0o644, Size: int64(len(e.body))}); err != nil {
			return err
		}
		if _, err := tw.Write(e.body); err != nil {
			return err
		}
	}
	return tw.Close()
}

// WriteFile writes the image archive of spec to path.
func WriteFile(path string, spec Spec) error {
	var buf bytes.Buffer
	if err := Write(&buf, spec); err != nil {
		return fmt.Errorf("image %s: %w", spec.Ref, err)
	}
	tmp := path + ".tmp"
	err := os.WriteFile(tmp, buf.Bytes(), 0o644)
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		_ = os.Remove(tmp)
	}
	return err
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

func digest(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}
