package image

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// entry is one member of a tar archive.
type entry struct {
	name string
	typ  byte
	mode int64
	body []byte
}

// readTar lists the members of a tar archive in order.
func readTar(t *testing.T, b []byte) []entry {
	t.Helper()
	var entries []entry
	tr := tar.NewReader(bytes.NewReader(b))
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return entries
		}
		if err != nil {
			t.Fatalf("reading tar: %v", err)
		}
		body, err := io.ReadAll(tr)
		if err != nil {
			t.Fatalf("reading %s: %v", h.Name, err)
		}
		entries = append(entries, entry{name: h.Name, typ: h.Typeflag, mode: h.Mode, body: body})
	}
}

func byName(entries []entry) map[string]entry {
	m := map[string]entry{}
	for _, e := range entries {
		m[e.name] = e
	}
	return m
}

func names(entries []entry) []string {
	var n []string
	for _, e := range entries {
		n = append(n, e.name)
	}
	return n
}

// archive is an image archive taken apart.
type archive struct {
	manifest []manifestEntry
	config   imageConfig
	layer    []byte
}

type manifestEntry struct {
	Config   string
	RepoTags []string
	Layers   []string
}

type imageConfig struct {
	Architecture string `json:"architecture"`
	OS           string `json:"os"`
	Config       json.RawMessage
	RootFS       struct {
		Type    string   `json:"type"`
		DiffIDs []string `json:"diff_ids"`
	} `json:"rootfs"`
}

// openArchive checks that the manifest names files the archive holds, and
// returns them decoded.
func openArchive(t *testing.T, b []byte) archive {
	t.Helper()
	files := byName(readTar(t, b))
	m, ok := files["manifest.json"]
	if !ok {
		t.Fatalf("the archive has no manifest.json: %v", slices.Sorted(maps.Keys(files)))
	}
	var a archive
	if err := json.Unmarshal(m.body, &a.manifest); err != nil {
		t.Fatalf("manifest.json: %v\n%s", err, m.body)
	}
	if len(a.manifest) != 1 {
		t.Fatalf("manifest.json has %d images, want 1: %s", len(a.manifest), m.body)
	}
	c, ok := files[a.manifest[0].Config]
	if !ok {
		t.Fatalf("the manifest's config %q is not in the archive", a.manifest[0].Config)
	}
	if err := json.Unmarshal(c.body, &a.config); err != nil {
		t.Fatalf("config %s: %v\n%s", a.manifest[0].Config, err, c.body)
	}
	if len(a.manifest[0].Layers) != 1 {
		t.Fatalf("the manifest names %d layers, want 1: %v", len(a.manifest[0].Layers), a.manifest[0].Layers)
	}
	l, ok := files[a.manifest[0].Layers[0]]
	if !ok {
		t.Fatalf("the manifest's layer %q is not in the archive", a.manifest[0].Layers[0])
	}
	// The layer is gzipped, and the config names it by what it holds.
	zr, err := gzip.NewReader(bytes.NewReader(l.body))
	if err != nil {
		t.Fatalf("layer %s: %v", a.manifest[0].Layers[0], err)
	}
	if a.layer, err = io.ReadAll(zr); err != nil {
		t.Fatalf("layer %s: %v", a.manifest[0].Layers[0], err)
	}
	return a
}

// writeProgram writes a program that is not an ELF file, so ldd finds no
// library for it.
func writeProgram(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "prog")
	if err := os.WriteFile(p, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestWrite(t *testing.T) {
	const body = "#!/bin/sh\necho hello\n"
	prog := writeProgram(t, body)
	cases := map[string]struct {
		spec       Spec
		wantConfig map[string][]string
		wantLayer  []string
		wantPath   string
	}{
		"the program is the entrypoint at /<base name>": {
			spec:       Spec{Ref: "localhost/corral/prog:dev", Binary: prog},
			wantConfig: map[string][]string{"Entrypoint": {"/prog"}},
			wantLayer:  []string{"prog", "tmp/"},
			wantPath:   "prog",
		},
		"a path of its own comes after its directories, in order": {
			spec:       Spec{Ref: "localhost/corral/prog:v2", Binary: prog, Path: "/usr/local/bin/app"},
			wantConfig: map[string][]string{"Entrypoint": {"/usr/local/bin/app"}},
			wantLayer:  []string{"tmp/", "usr/", "usr/local/", "usr/local/bin/", "usr/local/bin/app"},
			wantPath:   "usr/local/bin/app",
		},
		"a command and no entrypoint": {
			spec:       Spec{Ref: "localhost/corral/prog:cmd", Binary: prog, Cmd: []string{"/prog", "--serve"}},
			wantConfig: map[string][]string{"Cmd": {"/prog", "--serve"}},
			wantLayer:  []string{"prog", "tmp/"},
			wantPath:   "prog",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := Write(&buf, tc.spec); err != nil {
				t.Fatalf("Write: %v", err)
			}
			a := openArchive(t, buf.Bytes())
			if diff := cmp.Diff([]string{tc.spec.Ref}, a.manifest[0].RepoTags); diff != "" {
				t.Errorf("RepoTags (-want +got):\n%s", diff)
			}
			sum := sha256.Sum256(a.layer)
			if diff := cmp.Diff([]string{"sha256:" + hex.EncodeToString(sum[:])}, a.config.RootFS.DiffIDs); diff != "" {
				t.Errorf("rootfs.diff_ids (-want +got):\n%s", diff)
			}
			if a.config.RootFS.Type != "layers" || a.config.OS != "linux" {
				t.Errorf("rootfs.type = %q, os = %q; want layers, linux", a.config.RootFS.Type, a.config.OS)
			}
			var config map[string][]string
			if err := json.Unmarshal(a.config.Config, &config); err != nil {
				t.Fatalf("config: %v\n%s", err, a.config.Config)
			}
			if diff := cmp.Diff(tc.wantConfig, config); diff != "" {
				t.Errorf("config (-want +got):\n%s", diff)
			}
			layer := readTar(t, a.layer)
			// A file that is not a dynamic executable brings nothing else.
			if diff := cmp.Diff(tc.wantLayer, names(layer)); diff != "" {
				t.Errorf("layer members (-want +got):\n%s", diff)
			}
			for _, e := range layer {
				want := int64(0o755)
				if e.name == "tmp/" {
					want = 0o1777 // anyone may write there, as in any image
				}
				if e.typ == tar.TypeDir && e.mode != want {
					t.Errorf("directory %s has mode %o, want %o", e.name, e.mode, want)
				}
			}
			p, ok := byName(layer)[tc.wantPath]
			if !ok {
				t.Fatalf("the layer has no %s", tc.wantPath)
			}
			if p.typ != tar.TypeReg || p.mode != 0o755 {
				t.Errorf("%s: type %q mode %o, want a regular file with mode 755", p.name, p.typ, p.mode)
			}
			if diff := cmp.Diff(body, string(p.body)); diff != "" {
				t.Errorf("%s holds (-want +got):\n%s", p.name, diff)
			}
		})
	}
}

func TestWriteBringsTheLibrariesOfADynamicProgram(t *testing.T) {
	const prog = "/bin/true"
	out, err := exec.Command("ldd", prog).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "=>") {
		t.Skipf("%s is not dynamically linked here: ldd says %v: %s", prog, err, out)
	}
	var buf bytes.Buffer
	if err := Write(&buf, Spec{Ref: "localhost/corral/true:dev", Binary: prog}); err != nil {
		t.Fatalf("Write: %v", err)
	}
	layer := readTar(t, openArchive(t, buf.Bytes()).layer)
	seen := map[string]bool{}
	var libc bool
	for _, e := range layer {
		if parent := path.Dir(strings.TrimSuffix(e.name, "/")); parent != "." && !seen[parent+"/"] {
			t.Errorf("%s comes before its directory %s/ (members: %v)", e.name, parent, names(layer))
		}
		seen[e.name] = true
		if e.typ != tar.TypeReg {
			continue
		}
		want, err := os.ReadFile("/" + e.name)
		if e.name == "true" {
			want, err = os.ReadFile(prog)
		}
		if err != nil {
			t.Errorf("the layer holds %s, which the machine has not: %v", e.name, err)
			continue
		}
		if !bytes.Equal(e.body, want) {
			t.Errorf("%s in the layer differs from the file on the machine", e.name)
		}
		libc = libc || strings.Contains(e.name, "libc.so")
	}
	if !seen["true"] {
		t.Errorf("the layer has no /true: %v", names(layer))
	}
	if !libc {
		t.Errorf("the layer has no libc, which ldd names:\n%s\nmembers: %v", out, names(layer))
	}
	libs, err := sharedLibraries(prog, runtime.GOARCH, false)
	if err != nil {
		t.Fatalf("sharedLibraries(%s): %v", prog, err)
	}
	for _, l := range libs {
		if !seen[strings.TrimPrefix(l, "/")] {
			t.Errorf("the layer lacks %s, which ldd names (members: %v)", l, names(layer))
		}
	}
}

func TestWriteErrors(t *testing.T) {
	prog := writeProgram(t, "#!/bin/sh\n")
	missing := filepath.Join(t.TempDir(), "missing")
	cases := map[string]struct {
		spec   Spec
		wantIs error
	}{
		"no ref":            {spec: Spec{Binary: prog}},
		"no binary":         {spec: Spec{Ref: "localhost/corral/x:dev"}},
		"no file at binary": {spec: Spec{Ref: "localhost/corral/x:dev", Binary: missing}, wantIs: fs.ErrNotExist},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var buf bytes.Buffer
			err := Write(&buf, tc.spec)
			if err == nil {
				t.Fatalf("Write(%+v) succeeded, want an error", tc.spec)
			}
			if tc.wantIs != nil && !errors.Is(err, tc.wantIs) {
				t.Errorf("Write(%+v) = %v, want an error that is %v", tc.spec, err, tc.wantIs)
			}
			if buf.Len() != 0 {
				t.Errorf("Write(%+v) failed but wrote %d bytes", tc.spec, buf.Len())
			}
		})
	}
}

func TestWriteFile(t *testing.T) {
	spec := Spec{Ref: "localhost/corral/prog:dev", Binary: writeProgram(t, "#!/bin/sh\necho hi\n")}
	dir := t.TempDir()
	dest := filepath.Join(dir, "prog.tar")
	if err := WriteFile(dest, spec); err != nil {
		t.Fatalf("WriteFile: %v", err)
	}
	got, err := os.ReadFile(dest)
	if err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	if err := Write(&want, spec); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want.Bytes()) {
		t.Errorf("WriteFile wrote %d bytes that differ from Write's %d", len(got), want.Len())
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var left []string
	for _, e := range entries {
		left = append(left, e.Name())
	}
	if diff := cmp.Diff([]string{"prog.tar"}, left); diff != "" {
		t.Errorf("files left in the directory (-want +got):\n%s", diff)
	}
}

func TestWriteFileNamesTheImageOnError(t *testing.T) {
	dest := filepath.Join(t.TempDir(), "x.tar")
	err := WriteFile(dest, Spec{Ref: "localhost/corral/x:dev", Binary: filepath.Join(t.TempDir(), "missing")})
	if err == nil || !strings.Contains(err.Error(), "localhost/corral/x:dev") || !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("WriteFile = %v, want an error naming the image and wrapping fs.ErrNotExist", err)
	}
	if _, err := os.Stat(dest); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("WriteFile failed but left %s: %v", dest, err)
	}
}

func TestLddPath(t *testing.T) {
	cases := map[string]struct {
		out  string
		want []string
	}{
		"glibc": {
			out: "\tlinux-vdso.so.1 (0x00007ffd1a5f1000)\n" +
				"\tlibc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x00007f505397c000)\n" +
				"\t/lib64/ld-linux-x86-64.so.2 (0x00007f5053b7b000)\n",
			want: []string{"/lib/x86_64-linux-gnu/libc.so.6", "/lib64/ld-linux-x86-64.so.2"},
		},
		"several libraries": {
			out: "\tlinux-vdso.so.1 (0x00007ffc)\n" +
				"\tlibselinux.so.1 => /lib/x86_64-linux-gnu/libselinux.so.1 (0x00007f2a)\n" +
				"\tlibc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x00007f29)\n" +
				"\tlibpcre2-8.so.0 => /lib/x86_64-linux-gnu/libpcre2-8.so.0 (0x00007f28)\n" +
				"\t/lib64/ld-linux-x86-64.so.2 (0x00007f2b)\n",
			want: []string{
				"/lib/x86_64-linux-gnu/libselinux.so.1",
				"/lib/x86_64-linux-gnu/libc.so.6",
				"/lib/x86_64-linux-gnu/libpcre2-8.so.0",
				"/lib64/ld-linux-x86-64.so.2",
			},
		},
		"a library not found": {
			out:  "\tlibmissing.so.1 => not found\n\tlibc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x00007f29)\n",
			want: []string{"/lib/x86_64-linux-gnu/libc.so.6"},
		},
		"static": {
			out: "\tstatically linked\n",
		},
		"not dynamic": {
			out: "\tnot a dynamic executable\n",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var got []string
			for _, m := range lddPath.FindAllStringSubmatch(tc.out, -1) {
				got = append(got, m[1])
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("paths in\n%s(-want +got):\n%s", tc.out, diff)
			}
		})
	}
}

func TestSharedLibraries(t *testing.T) {
	text := writeProgram(t, "just text\n")
	cases := map[string]struct {
		binary  string
		want    []string
		wantErr bool
	}{
		"not an executable":          {binary: text},
		"no file":                    {binary: filepath.Join(t.TempDir(), "missing"), wantErr: true},
		"a relative name of no file": {binary: "no-such-program-here", wantErr: true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := sharedLibraries(tc.binary, runtime.GOARCH, false)
			if (err != nil) != tc.wantErr {
				t.Fatalf("sharedLibraries(%s) error = %v, want error: %v", tc.binary, err, tc.wantErr)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("sharedLibraries(%s) (-want +got):\n%s", tc.binary, diff)
			}
		})
	}
}

func TestSharedLibrariesOfADynamicProgramAreSorted(t *testing.T) {
	out, err := exec.Command("ldd", "/bin/true").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "=>") {
		t.Skipf("/bin/true is not dynamically linked here: ldd says %v: %s", err, out)
	}
	got, err := sharedLibraries("/bin/true", runtime.GOARCH, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) == 0 || !slices.IsSorted(got) {
		t.Errorf("sharedLibraries(/bin/true) = %v, want ldd's paths, sorted:\n%s", got, out)
	}
	if slices.ContainsFunc(got, func(p string) bool { return strings.Contains(p, "vdso") }) {
		t.Errorf("sharedLibraries(/bin/true) = %v names the vdso, which is no file", got)
	}
}

func TestLddMissing(t *testing.T) {
	out := "\tlinux-vdso.so.1 (0x00007ffd)\n\tlibfoo.so.1 => not found\n\tlibc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x00007f)\n"
	m := lddMissing.FindStringSubmatch(out)
	if m == nil || m[1] != "libfoo.so.1" {
		t.Errorf("lddMissing on %q = %v, want the missing libfoo.so.1", out, m)
	}
	if m := lddMissing.FindStringSubmatch("\tlibc.so.6 => /lib/libc.so.6 (0x1)\n"); m != nil {
		t.Errorf("lddMissing found %v where nothing is missing", m)
	}
}
