package image

import (
	"archive/tar"
	"bytes"
	"debug/elf"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
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
	// uid and gid own it; zero is root.
	uid, gid int
}

// programFiles are the program at path and the shared libraries it loads.
func programFiles(binary, path, arch string, static bool) ([]file, error) {
	body, err := os.ReadFile(binary)
	if err != nil {
		return nil, err
	}
	files := []file{{path: path, body: body, mode: 0o755}}
	libs, err := sharedLibraries(binary, arch, static)
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

// nonRootFiles name user and group 65532 nonroot, and give it the home
// distroless images give it, so that programs looking the user up find it.
func nonRootFiles() []file {
	return []file{
		{path: "/etc/passwd", mode: 0o644, body: []byte(
			"root:x:0:0:root:/root:/sbin/nologin\n" +
				"nonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\n")},
		{path: "/etc/group", mode: 0o644, body: []byte("root:x:0:\nnonroot:x:65532:\n")},
		{path: "/home/nonroot/", mode: 0o700, uid: 65532, gid: 65532},
	}
}

// elfMachines are the ELF machines of the architectures images are made
// for; a program built for another one than its image's is refused.
var elfMachines = map[string]elf.Machine{
	"amd64":   elf.EM_X86_64,
	"arm64":   elf.EM_AARCH64,
	"386":     elf.EM_386,
	"arm":     elf.EM_ARM,
	"ppc64le": elf.EM_PPC64,
	"riscv64": elf.EM_RISCV,
	"s390x":   elf.EM_S390,
}

// lddPath matches the absolute paths in ldd's output: "libc.so.6 =>
// /lib/x86_64-linux-gnu/libc.so.6 (0x…)" and "/lib64/ld-linux-x86-64.so.2
// (0x…)".
var lddPath = regexp.MustCompile(`(?m)(?:=>\s+|^\s+)(/\S+)\s+\(0x`)

// lddMissing matches a library ldd could not find: "libfoo.so => not found".
var lddMissing = regexp.MustCompile(`(?m)^\s*(\S+) => not found`)

// sharedLibraries lists what a dynamically linked program for arch loads;
// a static one, or a file that is no ELF program, loads nothing. Only a
// program for this machine's architecture may load any (ldd runs it), and
// none when static is set.
func sharedLibraries(binary, arch string, static bool) ([]string, error) {
	r, err := os.Open(binary)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	magic := make([]byte, len(elf.ELFMAG))
	if _, err := io.ReadFull(r, magic); err != nil || string(magic) != elf.ELFMAG {
		return nil, nil // a script, or any file that is not a program
	}
	f, err := elf.NewFile(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", binary, err)
	}
	if want, ok := elfMachines[arch]; ok && f.Machine != want {
		return nil, fmt.Errorf("%s is a program for %s, not for %s", binary, f.Machine, arch)
	}
	if !slices.ContainsFunc(f.Progs, func(p *elf.Prog) bool { return p.Type == elf.PT_INTERP }) {
		return nil, nil
	}
	switch {
	case static:
		return nil, fmt.Errorf("%s is dynamically linked: build it with CGO_ENABLED=0", binary)
	case arch != runtime.GOARCH:
		return nil, fmt.Errorf("%s is dynamically linked for %s: only a static program is packed for another architecture than this machine's", binary, arch)
	}
	return lddLibraries(binary)
}

// lddLibraries are the libraries ldd lists for binary, sorted.
func lddLibraries(binary string) ([]string, error) {
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
			Uid: f.uid, Gid: f.gid, ModTime: mtime,
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
