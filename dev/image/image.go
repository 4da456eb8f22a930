// Package image builds container images with no Docker and no registry,
// with go-containerregistry's image model: archives a container runtime
// imports (the format `docker save` writes and `ctr images import` reads),
// so that the local fleet runs programs built here, and multi-platform
// OCI layouts a release is pushed from (hack/image).
//
// An image is one layer holding one program, an empty /tmp and, when the
// program is dynamically linked, the shared libraries it loads (as ldd
// lists them); a statically linked program makes an image FROM scratch.
// A release image (Release) is a static program per architecture, run as
// user 65532 (nonroot) and labelled with its version and commit.
//
// Images are reproducible: the same programs and Spec make the same
// digests. The layer's entries are sorted, owned by 0 (but nonroot's home)
// and dated Spec.Created; gzip writes no name and no time.
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
	// Write names the archive's image so; Build does not need it.
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
	// Arch is the architecture (GOARCH) the program is built for, and so
	// the image's: linux/<Arch>. Empty means this machine's.
	Arch string
	// Static refuses a program that loads shared libraries, so that the
	// image holds nothing of the machine that built it.
	Static bool
	// NonRoot runs the image as user and group 65532, which its
	// /etc/passwd and /etc/group name nonroot (as distroless images do),
	// in /.
	NonRoot bool
	// Labels are the image's labels.
	Labels map[string]string
	// Created is when the image was made and the time of every file in
	// it: a commit's time makes the image the same every time it is built
	// from that commit. Zero means the Unix epoch.
	Created time.Time
	// Compression is the gzip level of the layer; zero means
	// gzip.BestSpeed, for images made and imported on the spot.
	Compression int
}

// NonRootUser is the user and group a NonRoot image runs as.
const NonRootUser = "65532:65532"

// Build makes the image of spec.
func Build(spec Spec) (v1.Image, error) {
	if spec.Binary == "" {
		return nil, fmt.Errorf("an image needs a program")
	}
	arch := spec.arch()
	path := spec.Path
	if path == "" {
		path = "/" + filepath.Base(spec.Binary)
	}
	created := spec.Created
	if created.IsZero() {
		created = time.Unix(0, 0)
	}
	created = created.UTC().Truncate(time.Second)
	files, err := programFiles(spec.Binary, path, arch, spec.Static)
	if err != nil {
		return nil, err
	}
	if spec.NonRoot {
		files = append(files, nonRootFiles()...)
	}
	layer, err := newLayer(files, created, spec.Compression)
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
	cf.OS, cf.Architecture = "linux", arch
	cf.Created = v1.Time{Time: created}
	cf.Config = v1.Config{Entrypoint: []string{path}, Labels: spec.Labels}
	if len(spec.Cmd) > 0 {
		cf.Config.Entrypoint, cf.Config.Cmd = nil, spec.Cmd
	}
	if spec.NonRoot {
		cf.Config.User, cf.Config.WorkingDir = NonRootUser, "/"
	}
	return mutate.ConfigFile(img, cf)
}

func (s Spec) arch() string {
	if s.Arch == "" {
		return runtime.GOARCH
	}
	return s.Arch
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

// WriteArchive writes img, named ref, to path as an archive `ctr images
// import`, `docker load` and `podman load` read.
func WriteArchive(path, ref string, img v1.Image) error {
	tag, err := name.NewTag(ref)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := tarball.Write(tag, img, &buf); err != nil {
		return fmt.Errorf("image %s: %w", ref, err)
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
	if level == 0 {
		level = gzip.BestSpeed
	}
	return tarball.LayerFromOpener(func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(b)), nil },
		tarball.WithMediaType(types.OCILayer), tarball.WithCompressionLevel(level), tarball.WithCompressedCaching)
}
