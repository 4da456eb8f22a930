package image

import (
	"archive/tar"
	"bytes"
	"debug/elf"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// writeELF writes the header of an ELF program for machine, with an
// interpreter (as a dynamically linked program has) when dynamic is set:
// enough for what Build reads of a program, with no toolchain.
func writeELF(t *testing.T, machine elf.Machine, dynamic bool) string {
	t.Helper()
	var phnum uint16
	if dynamic {
		phnum = 1
	}
	hdr := elf.Header64{
		Ident:   [elf.EI_NIDENT]byte{0x7f, 'E', 'L', 'F', byte(elf.ELFCLASS64), byte(elf.ELFDATA2LSB), byte(elf.EV_CURRENT)},
		Type:    uint16(elf.ET_EXEC),
		Machine: uint16(machine),
		Version: uint32(elf.EV_CURRENT),
		Phoff:   64, Ehsize: 64, Phentsize: 56, Phnum: phnum, Shentsize: 64,
	}
	var b bytes.Buffer
	must(t, binary.Write(&b, binary.LittleEndian, hdr))
	if dynamic {
		must(t, binary.Write(&b, binary.LittleEndian, elf.Prog64{Type: uint32(elf.PT_INTERP)}))
	}
	p := filepath.Join(t.TempDir(), "corral-"+machine.String())
	must(t, os.WriteFile(p, b.Bytes(), 0o755))
	return p
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// testRelease is a release of static programs for amd64 and arm64.
func testRelease(t *testing.T) Release {
	t.Helper()
	return Release{
		Title: "corral",
		Binaries: map[string]string{
			"arm64": writeELF(t, elf.EM_AARCH64, false),
			"amd64": writeELF(t, elf.EM_X86_64, false),
		},
		Version:  "v1.2.3",
		Revision: "0123456789abcdef0123456789abcdef01234567",
		Source:   "https://github.com/corral-dev/corral",
		Created:  time.Date(2026, 11, 29, 4, 28, 41, 0, time.FixedZone("CET", 3600)),
	}
}

func TestReleaseIsReproducible(t *testing.T) {
	r := testRelease(t)
	dirs := []string{filepath.Join(t.TempDir(), "a"), filepath.Join(t.TempDir(), "b")}
	var digests []v1.Hash
	for _, dir := range dirs {
		idx, err := r.Index()
		if err != nil {
			t.Fatalf("Index: %v", err)
		}
		d, err := idx.Digest()
		if err != nil {
			t.Fatal(err)
		}
		digests = append(digests, d)
		must(t, WriteLayout(dir, "ghcr.io/corral-dev/corral:v1.2.3", idx))
	}
	if digests[0] != digests[1] {
		t.Errorf("two builds of the same release have digests %s and %s", digests[0], digests[1])
	}
	a, b := layoutFiles(t, dirs[0]), layoutFiles(t, dirs[1])
	if diff := cmp.Diff(a, b); diff != "" {
		t.Errorf("two layouts of the same release differ (-first +second):\n%s", diff)
	}
}

// layoutFiles are the files of a layout and what they hold.
func layoutFiles(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	must(t, filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		files[rel] = string(b)
		return err
	}))
	return files
}

func TestReleaseIndex(t *testing.T) {
	r := testRelease(t)
	idx, err := r.Index()
	if err != nil {
		t.Fatalf("Index: %v", err)
	}
	m, err := idx.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	if m.MediaType != types.OCIImageIndex {
		t.Errorf("index media type %q, want %q", m.MediaType, types.OCIImageIndex)
	}
	var platforms []string
	for _, d := range m.Manifests {
		platforms = append(platforms, d.Platform.String())
		if d.MediaType != types.OCIManifestSchema1 {
			t.Errorf("%s: media type %q, want %q", d.Platform, d.MediaType, types.OCIManifestSchema1)
		}
	}
	if diff := cmp.Diff([]string{"linux/amd64", "linux/arm64"}, platforms); diff != "" {
		t.Errorf("platforms (-want +got):\n%s", diff)
	}
	wantLabels := map[string]string{
		"org.opencontainers.image.version":  "v1.2.3",
		"org.opencontainers.image.revision": "0123456789abcdef0123456789abcdef01234567",
		"org.opencontainers.image.source":   "https://github.com/corral-dev/corral",
		"org.opencontainers.image.title":    "corral",
		"org.opencontainers.image.created":  "2026-11-29T03:28:41Z",
	}
	if diff := cmp.Diff(wantLabels, m.Annotations); diff != "" {
		t.Errorf("index annotations (-want +got):\n%s", diff)
	}
	created := time.Date(2026, 11, 29, 3, 28, 41, 0, time.UTC)
	for _, arch := range []string{"amd64", "arm64"} {
		t.Run(arch, func(t *testing.T) {
			img, err := ImageFor(idx, arch)
			if err != nil {
				t.Fatalf("ImageFor(%s): %v", arch, err)
			}
			cf, err := img.ConfigFile()
			if err != nil {
				t.Fatal(err)
			}
			if cf.OS != "linux" || cf.Architecture != arch || !cf.Created.Equal(created) {
				t.Errorf("os %s, architecture %s, created %s; want linux, %s, %s", cf.OS, cf.Architecture, cf.Created.Time, arch, created)
			}
			want := v1.Config{User: "65532:65532", WorkingDir: "/", Entrypoint: []string{"/corral"}, Labels: wantLabels}
			if diff := cmp.Diff(want, cf.Config); diff != "" {
				t.Errorf("config (-want +got):\n%s", diff)
			}
			layers, err := img.Layers()
			if err != nil || len(layers) != 1 {
				t.Fatalf("layers = %d, %v; want one", len(layers), err)
			}
			if mt, _ := layers[0].MediaType(); mt != types.OCILayer {
				t.Errorf("layer media type %q, want %q", mt, types.OCILayer)
			}
			rc, err := layers[0].Uncompressed()
			if err != nil {
				t.Fatal(err)
			}
			defer rc.Close()
			checkReleaseLayer(t, rc, r.Binaries[arch], created)
		})
	}
}

// checkReleaseLayer checks that a release layer holds the program, nonroot's
// files and /tmp, and nothing else (no shell): owned by root, dated created.
func checkReleaseLayer(t *testing.T, layer io.Reader, program string, created time.Time) {
	t.Helper()
	type member struct {
		typ      byte
		mode     int64
		uid, gid int
	}
	want := map[string]member{
		"corral":        {tar.TypeReg, 0o755, 0, 0},
		"etc/":          {tar.TypeDir, 0o755, 0, 0},
		"etc/group":     {tar.TypeReg, 0o644, 0, 0},
		"etc/passwd":    {tar.TypeReg, 0o644, 0, 0},
		"home/":         {tar.TypeDir, 0o755, 0, 0},
		"home/nonroot/": {tar.TypeDir, 0o700, 65532, 65532},
		"tmp/":          {tar.TypeDir, 0o1777, 0, 0},
	}
	got := map[string]member{}
	var order []string
	bodies := map[string]string{}
	tr := tar.NewReader(layer)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("reading the layer: %v", err)
		}
		body, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		got[h.Name] = member{h.Typeflag, h.Mode, h.Uid, h.Gid}
		order = append(order, h.Name)
		bodies[h.Name] = string(body)
		if !h.ModTime.Equal(created) || h.Uname != "" || h.Gname != "" {
			t.Errorf("%s: mtime %s, owner names %q %q; want %s and none", h.Name, h.ModTime, h.Uname, h.Gname, created)
		}
	}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(member{})); diff != "" {
		t.Errorf("layer members (-want +got):\n%s", diff)
	}
	if !slices.IsSorted(order) {
		t.Errorf("layer members are not sorted: %v", order)
	}
	prog, err := os.ReadFile(program)
	must(t, err)
	if bodies["corral"] != string(prog) {
		t.Errorf("/corral is not the program %s", program)
	}
	if !strings.Contains(bodies["etc/passwd"], "\nnonroot:x:65532:65532:") {
		t.Errorf("/etc/passwd names no nonroot 65532:\n%s", bodies["etc/passwd"])
	}
	if !strings.Contains(bodies["etc/group"], "\nnonroot:x:65532:") {
		t.Errorf("/etc/group names no nonroot 65532:\n%s", bodies["etc/group"])
	}
}

func TestReleaseRefuses(t *testing.T) {
	cases := map[string]struct {
		binaries map[string]string
		want     string
	}{
		"a dynamically linked program": {
			binaries: map[string]string{"amd64": writeELF(t, elf.EM_X86_64, true)},
			want:     "dynamically linked: build it with CGO_ENABLED=0",
		},
		"a program for another architecture": {
			binaries: map[string]string{"arm64": writeELF(t, elf.EM_X86_64, false)},
			want:     "is a program for EM_X86_64, not for arm64",
		},
		"no program": {want: "needs a title and a program"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			r := testRelease(t)
			r.Binaries = tc.binaries
			_, err := r.Index()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Index() = %v, want an error saying %q", err, tc.want)
			}
		})
	}
}

func TestLayoutAndArchive(t *testing.T) {
	const ref = "registry.example:5000/corral/corral:v1.2.3"
	r := testRelease(t)
	idx, err := r.Index()
	must(t, err)
	dir := filepath.Join(t.TempDir(), "corral")
	must(t, os.MkdirAll(filepath.Join(dir, "stale"), 0o755))
	must(t, WriteLayout(dir, ref, idx))
	if _, err := os.Stat(filepath.Join(dir, "stale")); !os.IsNotExist(err) {
		t.Errorf("WriteLayout left what the directory held: %v", err)
	}
	gotRef, got, err := ReadLayout(dir)
	if err != nil {
		t.Fatalf("ReadLayout: %v", err)
	}
	want, _ := idx.Digest()
	if d, _ := got.Digest(); gotRef != ref || d != want {
		t.Errorf("ReadLayout = %s, %s; want %s, %s", gotRef, d, ref, want)
	}
	if _, err := ImageFor(got, "s390x"); err == nil || !strings.Contains(err.Error(), "linux/amd64") {
		t.Errorf("ImageFor(s390x) = %v, want an error naming the platforms it has", err)
	}

	// The archive for this machine, as `ctr images import` reads it.
	img, err := ImageFor(got, runtime.GOARCH)
	if err != nil {
		t.Skipf("no image for this machine's architecture: %v", err)
	}
	path := filepath.Join(t.TempDir(), "corral.tar")
	must(t, WriteArchive(path, ref, img))
	b, err := os.ReadFile(path)
	must(t, err)
	a := openArchive(t, b)
	if diff := cmp.Diff([]string{ref}, a.manifest[0].RepoTags); diff != "" {
		t.Errorf("RepoTags (-want +got):\n%s", diff)
	}
	if a.config.Architecture != runtime.GOARCH || a.config.OS != "linux" {
		t.Errorf("the archive's image is %s/%s, want linux/%s", a.config.OS, a.config.Architecture, runtime.GOARCH)
	}
	checkReleaseLayer(t, bytes.NewReader(a.layer), r.Binaries[runtime.GOARCH], time.Date(2026, 11, 29, 3, 28, 41, 0, time.UTC))
}
