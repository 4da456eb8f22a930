//go:build linux

package textpages

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// mapping is one mapping of the binary: its address range.
type mapping struct{ start, end uintptr }

// Trim advises the kernel to map the binary's read-only pages one at a
// time. It is best-effort: an error says what could not be done, and
// changes nothing of the process but its memory use.
func Trim() error {
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	exe, err = filepath.EvalSymlinks(exe)
	if err != nil {
		return err
	}
	f, err := os.Open("/proc/self/maps")
	if err != nil {
		return err
	}
	defer f.Close()
	maps, err := readOnlyMappings(bufio.NewScanner(f), exe)
	if err != nil {
		return err
	}
	for _, m := range maps {
		for _, advice := range []int{unix.MADV_RANDOM, unix.MADV_DONTNEED} {
			if _, _, errno := unix.Syscall(unix.SYS_MADVISE, m.start, m.end-m.start, uintptr(advice)); errno != 0 {
				return fmt.Errorf("madvise %#x-%#x: %w", m.start, m.end, errno)
			}
		}
	}
	return nil
}

// readOnlyMappings are the mappings of file exe in /proc/self/maps lines
// that are not writable: code and read-only data.
func readOnlyMappings(lines *bufio.Scanner, exe string) ([]mapping, error) {
	var out []mapping
	for lines.Scan() {
		f := strings.Fields(lines.Text())
		if len(f) < 6 || f[5] != exe || strings.Contains(f[1], "w") {
			continue
		}
		lo, hi, ok := strings.Cut(f[0], "-")
		if !ok {
			continue
		}
		start, err1 := strconv.ParseUint(lo, 16, 64)
		end, err2 := strconv.ParseUint(hi, 16, 64)
		if err1 != nil || err2 != nil || end <= start {
			return nil, fmt.Errorf("reading /proc/self/maps: bad range %q", f[0])
		}
		out = append(out, mapping{uintptr(start), uintptr(end)})
	}
	return out, lines.Err()
}
