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
	"path/filepath"
	"runtime"
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

func digest(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}
