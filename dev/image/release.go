package image

import (
	"compress/gzip"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
)

// The labels of a release image, as the OCI image spec names them.
const (
	LabelVersion  = "org.opencontainers.image.version"
	LabelRevision = "org.opencontainers.image.revision"
	LabelSource   = "org.opencontainers.image.source"
	LabelTitle    = "org.opencontainers.image.title"
	LabelCreated  = "org.opencontainers.image.created"
)

// The annotations naming the image of an OCI layout: containerd's full
// name, and the OCI spec's tag.
const (
	annotationName    = "io.containerd.image.name"
	annotationRefName = "org.opencontainers.image.ref.name"
)

// Release is a release image: a static program per architecture at
// /<Title>, which is its entrypoint (so a pod's args are the command: hub,
// agent…), run as nonroot in /, labelled with what it is. Nothing in it
// needs writing but /tmp: it runs on a read-only root.
type Release struct {
	// Title names the program and the image: "corral".
	Title string
	// Binaries are the static programs by architecture (GOARCH).
	Binaries map[string]string
	// Version and Revision are what the program says it is (`corral
	// version`): the tag and the commit.
	Version, Revision string
	// Source is where the source is: "https://github.com/corral-dev/corral".
	Source string
	// Created is the commit's time: the image's time, and its files'.
	Created time.Time
}

// Labels are the image's labels, and its index's annotations.
func (r Release) Labels() map[string]string {
	return map[string]string{
		LabelVersion:  r.Version,
		LabelRevision: r.Revision,
		LabelSource:   r.Source,
		LabelTitle:    r.Title,
		LabelCreated:  r.Created.UTC().Format(time.RFC3339),
	}
}

// Specs are the images of r, one per architecture, sorted by it.
func (r Release) Specs() ([]Spec, error) {
	if r.Title == "" || len(r.Binaries) == 0 {
		return nil, errors.New("a release image needs a title and a program")
	}
	var specs []Spec
	for _, arch := range slices.Sorted(maps.Keys(r.Binaries)) {
		specs = append(specs, Spec{
			Binary:      r.Binaries[arch],
			Path:        "/" + r.Title,
			Arch:        arch,
			Static:      true,
			NonRoot:     true,
			Labels:      r.Labels(),
			Created:     r.Created,
			Compression: gzip.DefaultCompression,
		})
	}
	return specs, nil
}

// Index is the multi-platform image of r.
func (r Release) Index() (v1.ImageIndex, error) {
	specs, err := r.Specs()
	if err != nil {
		return nil, err
	}
	idx, err := Index(specs)
	if err != nil {
		return nil, err
	}
	return mutate.Annotations(idx, r.Labels()).(v1.ImageIndex), nil
}

// Index is the image index of specs, one image per architecture, in the
// order given.
func Index(specs []Spec) (v1.ImageIndex, error) {
	var adds []mutate.IndexAddendum
	for _, s := range specs {
		img, err := Build(s)
		if err != nil {
			return nil, fmt.Errorf("linux/%s: %w", s.arch(), err)
		}
		adds = append(adds, mutate.IndexAddendum{Add: img, Descriptor: v1.Descriptor{
			Platform: &v1.Platform{OS: "linux", Architecture: s.arch()},
		}})
	}
	return mutate.AppendManifests(empty.Index, adds...), nil
}

// ImageFor is the image of idx for linux/arch.
func ImageFor(idx v1.ImageIndex, arch string) (v1.Image, error) {
	m, err := idx.IndexManifest()
	if err != nil {
		return nil, err
	}
	var have []string
	for _, d := range m.Manifests {
		if d.Platform == nil {
			continue
		}
		if d.Platform.OS == "linux" && d.Platform.Architecture == arch {
			return idx.Image(d.Digest)
		}
		have = append(have, d.Platform.String())
	}
	return nil, fmt.Errorf("the image has no linux/%s, only %v", arch, have)
}

// WriteLayout writes idx, named ref, to dir as an OCI image layout (what
// `skopeo copy oci:DIR` and hack/image push read), replacing what dir held.
func WriteLayout(dir, ref string, idx v1.ImageIndex) error {
	tag, err := name.NewTag(ref)
	if err != nil {
		return err
	}
	tmp := dir + ".tmp"
	if err := os.RemoveAll(tmp); err != nil {
		return err
	}
	p, err := layout.Write(tmp, empty.Index)
	if err == nil {
		err = p.AppendIndex(idx, layout.WithAnnotations(map[string]string{annotationName: ref, annotationRefName: tag.TagStr()}))
	}
	if err == nil {
		err = os.RemoveAll(dir)
	}
	if err == nil {
		err = os.Rename(tmp, dir)
	}
	if err != nil {
		_ = os.RemoveAll(tmp)
		return fmt.Errorf("writing the image layout %s: %w", dir, err)
	}
	return nil
}

// ReadLayout reads the image index a layout written by WriteLayout holds,
// and the name it was given.
func ReadLayout(dir string) (string, v1.ImageIndex, error) {
	p, err := layout.FromPath(dir)
	if err != nil {
		return "", nil, err
	}
	top, err := p.ImageIndex()
	if err != nil {
		return "", nil, err
	}
	m, err := top.IndexManifest()
	if err != nil {
		return "", nil, err
	}
	if len(m.Manifests) != 1 || !m.Manifests[0].MediaType.IsIndex() {
		return "", nil, fmt.Errorf("the layout %s holds %d images; want one image index", dir, len(m.Manifests))
	}
	idx, err := top.ImageIndex(m.Manifests[0].Digest)
	return m.Manifests[0].Annotations[annotationName], idx, err
}
