// Package image writes container images as archives a container runtime
// imports — the format `docker save` writes and `ctr images import` reads —
// so that the local fleet runs programs built here, with no registry. The
// images are go-containerregistry's, built from an empty base.
//
// An image is one layer holding one program, an empty /tmp and, when the
// program is dynamically linked, the shared libraries it loads (as ldd
// lists them); a statically linked program makes an image FROM scratch.
//
// Images are reproducible: the same program makes the same digest. The
// layer's entries are sorted, owned by root and dated at the Unix epoch;
// gzip writes no name and no time.
package image

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
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

// Build makes the image of spec.
func Build(spec Spec) (v1.Image, error) {
	if spec.Binary == "" {
		return nil, fmt.Errorf("an image needs a program")
	}
	path := spec.Path
	if path == "" {
		path = "/" + filepath.Base(spec.Binary)
	}
	created := time.Unix(0, 0).UTC()
	files, err := programFiles(spec.Binary, path)
	if err != nil {
		return nil, err
	}
	layer, err := newLayer(files, created, gzip.BestSpeed)
	if err != nil {
		return nil, err
	}
	img := mutate.ConfigMediaType(mutate.MediaType(empty.Image, types.OCIManifestSchema1), types.OCIConfigJSON)
	img, err = mutate.Append(img, mutate.Addendum{
		Layer:     layer,
		MediaType: types.OCILayer,
		History:   v1.History{Created: v1.Time{Time: created}, CreatedBy: "corral dev/image: " + path},
	})
	if err != nil {
		return nil, err
	}
	cf, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	cf = cf.DeepCopy()
	cf.OS, cf.Architecture = "linux", runtime.GOARCH
	cf.Created = v1.Time{Time: created}
	cf.Config = v1.Config{Entrypoint: []string{path}}
	if len(spec.Cmd) > 0 {
		cf.Config.Entrypoint, cf.Config.Cmd = nil, spec.Cmd
	}
	return mutate.ConfigFile(img, cf)
}

// Write writes the image archive of spec to w.
func Write(w io.Writer, spec Spec) error {
	if spec.Ref == "" {
		return fmt.Errorf("an image needs a name")
	}
	tag, err := name.NewTag(spec.Ref)
	if err != nil {
		return err
	}
	img, err := Build(spec)
	if err != nil {
		return err
	}
	return tarball.Write(tag, img, w)
}

// WriteFile writes the image archive of spec to path.
func WriteFile(path string, spec Spec) error {
	var buf bytes.Buffer
	if err := Write(&buf, spec); err != nil {
		return fmt.Errorf("image %s: %w", spec.Ref, err)
	}
	return writeAtomically(path, buf.Bytes())
}

// writeAtomically replaces path with data, never leaving half of it.
func writeAtomically(path string, data []byte) error {
	tmp := path + ".tmp"
	err := os.WriteFile(tmp, data, 0o644)
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		_ = os.Remove(tmp)
	}
	return err
}

// newLayer is the gzipped layer of files, compressed once.
func newLayer(files []file, mtime time.Time, level int) (v1.Layer, error) {
	b, err := layerTar(files, mtime)
	if err != nil {
		return nil, err
	}
	return tarball.LayerFromOpener(func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(b)), nil },
		tarball.WithMediaType(types.OCILayer), tarball.WithCompressionLevel(level), tarball.WithCompressedCaching)
}
