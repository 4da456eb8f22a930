//go:build linux

package rsstrim

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// mapping is one read-only mapping of the binary: its address range, and
// whether all its mapped pages are the file's own (none copied on write,
// as a position-independent binary's relocated read-only data is).
type mapping struct {
	start, end uintptr
	clean      bool
}

// Trim advises the kernel to read the binary's code and read-only data
// without read-ahead, drops their pages mapped so far where they are all
// clean file pages, then drops the binary's pages no process maps from
// the page cache (dropCached). It is best-effort: an error says what
// could not be done, and changes nothing of the process but its memory
// use.
func Trim() error {
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	exe, err = filepath.EvalSymlinks(exe)
	if err != nil {
		return err
	}
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		return err
	}
	defer f.Close()
	maps, err := readOnlyMappings(bufio.NewScanner(f), exe)
	if err != nil {
		return err
	}
	for _, m := range maps {
		advice := []int{unix.MADV_RANDOM}
		if m.clean {
			advice = append(advice, unix.MADV_DONTNEED)
		}
		for _, a := range advice {
			if _, _, errno := unix.Syscall(unix.SYS_MADVISE, m.start, m.end-m.start, uintptr(a)); errno != 0 {
				return fmt.Errorf("madvise %#x-%#x: %w", m.start, m.end, errno)
			}
		}
	}
	return dropCached(exe)
}

// dropCached drops exe's pages that no process maps from the page cache,
// so that the pages the process touches next are read back one by one.
// A binary just written (go build, an image layer unpacked) sits in the
// page cache in large folios, and Linux (6.18 here) maps a whole folio on
// a fault: each page touched then brings megabytes of the binary into
// the process's RSS. Measured on test/benchmark/propagation's hub, right
// after make build: 77 MB of the binary mapped with its page cache as
// written, 40-43 MB with it dropped. Pages other processes map stay.
func dropCached(exe string) error {
	f, err := os.Open(exe)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := unix.Fadvise(int(f.Fd()), 0, 0, unix.FADV_DONTNEED); err != nil {
		return fmt.Errorf("fadvise %s: %w", exe, err)
	}
	return nil
}

// readOnlyMappings are the mappings of file exe in /proc/self/smaps lines
// that are not writable (code and read-only data), each clean unless it
// has anonymous (copied-on-write) pages.
func readOnlyMappings(lines *bufio.Scanner, exe string) ([]mapping, error) {
	var (
		out  []mapping
		ours bool
	)
	for lines.Scan() {
		f := strings.Fields(lines.Text())
		if len(f) == 0 {
			continue
		}
		if strings.HasSuffix(f[0], ":") { // a field of the mapping above
			if ours && f[0] == "Anonymous:" && len(f) > 1 && f[1] != "0" {
				out[len(out)-1].clean = false
			}
			continue
		}
		ours = len(f) >= 6 && f[5] == exe && !strings.Contains(f[1], "w")
		if !ours {
			continue
		}
		lo, hi, _ := strings.Cut(f[0], "-")
		start, err1 := strconv.ParseUint(lo, 16, 64)
		end, err2 := strconv.ParseUint(hi, 16, 64)
		if err1 != nil || err2 != nil || end <= start {
			return nil, fmt.Errorf("reading /proc/self/smaps: bad range %q", f[0])
		}
		out = append(out, mapping{start: uintptr(start), end: uintptr(end), clean: true})
	}
	return out, lines.Err()
}
