//go:build linux

package rsstrim

import (
	"bufio"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unsafe"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/sys/unix"
)

func TestReadOnlyMappings(t *testing.T) {
	smaps := strings.Join([]string{
		"00400000-020e3000 r-xp 00000000 fe:00 10010629                           /bin/corral",
		"Rss:               24664 kB",
		"Anonymous:             0 kB",
		"020e3000-04320000 r--p 01ce3000 fe:00 10010629                           /bin/corral",
		"Rss:               28004 kB",
		"Anonymous:             0 kB",
		"04320000-04330000 r--p 03f20000 fe:00 10010629                           /bin/corral",
		"Anonymous:            64 kB", // relocated read-only data of a PIE binary
		"04330000-043cd000 rw-p 03f30000 fe:00 10010629                           /bin/corral",
		"Anonymous:           120 kB",
		"043cd000-04400000 rw-p 00000000 00:00 0",
		"7f0000000000-7f0000001000 r--p 00000000 fe:00 42                         /bin/corral-other",
		"VmFlags: rd mr mw me",
	}, "\n")
	got, err := readOnlyMappings(bufio.NewScanner(strings.NewReader(smaps)), "/bin/corral")
	if err != nil {
		t.Fatal(err)
	}
	want := []mapping{{0x400000, 0x20e3000, true}, {0x20e3000, 0x4320000, true}, {0x4320000, 0x4330000, false}}
	if d := cmp.Diff(want, got, cmp.AllowUnexported(mapping{})); d != "" {
		t.Errorf("the binary's code and read-only data, nothing writable nor of another file, and whether clean (-want +got):\n%s", d)
	}
	if _, err := readOnlyMappings(bufio.NewScanner(strings.NewReader("zz-00 r-xp 0 0:0 1 /bin/corral")), "/bin/corral"); err == nil {
		t.Error("a bad range read without an error")
	}
}

func TestTrimDropsTheBinarysMappedPages(t *testing.T) {
	before := binaryRSS(t)
	if err := Trim(); err != nil {
		t.Fatal(err)
	}
	if after := binaryRSS(t); after >= before {
		t.Errorf("the binary's mapped pages: %d kB before Trim, %d kB after; want fewer after", before, after)
	}
}

func TestTrimDropsTheBinaryFromThePageCache(t *testing.T) {
	// go test just wrote the binary: its pages are dirty until written
	// back, and the page cache keeps a dirty page.
	if err := testBinary(t).Sync(); err != nil {
		t.Fatal(err)
	}
	before := cachedPages(t)
	if err := Trim(); err != nil {
		t.Fatal(err)
	}
	if after := cachedPages(t); after >= before {
		t.Errorf("the test binary's pages in the page cache: %d before Trim, %d after; want fewer after", before, after)
	}
}

// testBinary is the test binary, open for reading until the test ends.
func testBinary(t *testing.T) *os.File {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(exe)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// cachedPages is how many of the test binary's pages are in the page
// cache (mincore over a mapping of it that touches none).
func cachedPages(t *testing.T) int {
	t.Helper()
	f := testBinary(t)
	st, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	data, err := unix.Mmap(int(f.Fd()), 0, int(st.Size()), unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := unix.Munmap(data); err != nil {
			t.Error(err)
		}
	}()
	resident := make([]byte, (len(data)+os.Getpagesize()-1)/os.Getpagesize())
	if _, _, errno := unix.Syscall(unix.SYS_MINCORE, uintptr(unsafe.Pointer(&data[0])), uintptr(len(data)), uintptr(unsafe.Pointer(&resident[0]))); errno != 0 {
		t.Fatal(errno)
	}
	n := 0
	for _, r := range resident {
		n += int(r & 1)
	}
	if n == 0 {
		t.Fatal("none of the test binary is in the page cache: the test proves nothing")
	}
	return n
}

// binaryRSS is how many kB of the test binary's read-only mappings are
// mapped in.
func binaryRSS(t *testing.T) int {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	exe, err = filepath.EvalSymlinks(exe)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	total, ours := 0, false
	s := bufio.NewScanner(f)
	for s.Scan() {
		fields := strings.Fields(s.Text())
		switch {
		case len(fields) >= 5 && strings.Contains(fields[0], "-") && !strings.HasSuffix(fields[0], ":"):
			ours = len(fields) >= 6 && fields[5] == exe && !strings.Contains(fields[1], "w")
		case ours && fields[0] == "Rss:":
			kb, err := strconv.Atoi(fields[1])
			if err != nil {
				t.Fatal(err)
			}
			total += kb
		}
	}
	if err := s.Err(); err != nil {
		t.Fatal(err)
	}
	if total == 0 {
		t.Fatal("no mapped pages of the test binary found in /proc/self/smaps")
	}
	return total
}
