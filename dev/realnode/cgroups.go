package realnode

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
)

// cgroupMount is where the machine's cgroup hierarchies are mounted.
const cgroupMount = "/sys/fs/cgroup"

// systemCgroup is the child of a node's cgroup its own processes
// (containerd, the kubelet, kube-proxy) run in; the kubelet puts the pods
// beside it, in kubepods.
const systemCgroup = "node"

// cgroupName is the node's cgroup, the kubelet's cgroupRoot.
func cgroupName(id, node string) string { return nsPrefix(id) + node }

// hierarchies are the mounted cgroup hierarchies: one directory each for
// cgroup v1 (cpu, memory, …), or the one of cgroup v2.
func hierarchies() ([]string, error) {
	if _, err := os.Stat(filepath.Join(cgroupMount, "cgroup.controllers")); err == nil {
		return []string{cgroupMount}, nil
	}
	entries, err := os.ReadDir(cgroupMount)
	if err != nil {
		return nil, err
	}
	var dirs []string
	for _, e := range entries {
		dir := filepath.Join(cgroupMount, e.Name())
		if _, err := os.Stat(filepath.Join(dir, "cgroup.procs")); err == nil && !e.Type().IsRegular() {
			dirs = append(dirs, dir)
		}
	}
	if len(dirs) == 0 {
		return nil, fmt.Errorf("no cgroup hierarchy is mounted under %s", cgroupMount)
	}
	return dirs, nil
}

// createCgroups makes the node's cgroup and its system child in every
// hierarchy, and returns the system child's directories.
func createCgroups(name string) ([]string, error) {
	roots, err := hierarchies()
	if err != nil {
		return nil, err
	}
	var system []string
	for _, root := range roots {
		for _, dir := range []string{filepath.Join(root, name), filepath.Join(root, name, systemCgroup)} {
			if err := os.Mkdir(dir, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
				return nil, fmt.Errorf("creating cgroup %s: %w", dir, err)
			}
			// A new cpuset has no CPUs and no memory nodes, and takes no
			// process, until given its parent's.
			if filepath.Base(root) == "cpuset" {
				if err := inheritCpuset(dir); err != nil {
					return nil, err
				}
			}
		}
		system = append(system, filepath.Join(root, name, systemCgroup))
	}
	return system, nil
}

func inheritCpuset(dir string) error {
	for _, f := range []string{"cpuset.cpus", "cpuset.mems"} {
		b, err := os.ReadFile(filepath.Join(filepath.Dir(dir), f))
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			return fmt.Errorf("setting %s of %s: %w", f, dir, err)
		}
	}
	return nil
}

// cgroupKillTimeout bounds how long removing a cgroup waits for what it
// holds to die.
const cgroupKillTimeout = 30 * time.Second

// removeCgroups kills every process in the cgroups whose names start with
// prefix, in every hierarchy, and removes the cgroups.
func removeCgroups(prefix string) error {
	roots, err := hierarchies()
	if err != nil {
		return err
	}
	var dirs []string
	for _, root := range roots {
		entries, err := os.ReadDir(root)
		if err != nil {
			return err
		}
		for _, e := range entries {
			if e.IsDir() && strings.HasPrefix(e.Name(), prefix) {
				tree, err := cgroupTree(filepath.Join(root, e.Name()))
				if err != nil {
					return err
				}
				dirs = append(dirs, tree...)
			}
		}
	}
	if len(dirs) == 0 {
		return nil
	}
	if err := killAll(dirs); err != nil {
		return err
	}
	// Deepest first: a cgroup goes only once its children have.
	slices.SortFunc(dirs, func(a, b string) int { return strings.Count(b, "/") - strings.Count(a, "/") })
	var errs []error
	for _, d := range dirs {
		if err := removeCgroupDir(d); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// removeCgroupDir removes an emptied cgroup; the kernel may take a moment
// to let go of the last exited task.
func removeCgroupDir(dir string) error {
	var last error
	err := poll(func() bool {
		last = syscall.Rmdir(dir)
		return last == nil || errors.Is(last, fs.ErrNotExist) || !errors.Is(last, syscall.EBUSY)
	})
	if err != nil || (last != nil && !errors.Is(last, fs.ErrNotExist)) {
		return fmt.Errorf("removing cgroup %s: %w", dir, errors.Join(last, err))
	}
	return nil
}

// cgroupTree is dir and every cgroup below it.
func cgroupTree(dir string) ([]string, error) {
	var dirs []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		if d.IsDir() {
			dirs = append(dirs, path)
		}
		return nil
	})
	return dirs, err
}

// killAll sends SIGKILL to every process in dirs until none is left (a
// process may fork while its siblings are being killed), then waits until
// every one it killed is gone from the process table, not even a zombie
// its new parent has yet to reap.
func killAll(dirs []string) error {
	killed := map[int]bool{}
	var left []int
	if err := poll(func() bool {
		left = cgroupPIDs(dirs)
		for _, pid := range left {
			_ = syscall.Kill(pid, syscall.SIGKILL)
			killed[pid] = true
		}
		return len(left) == 0
	}); err != nil {
		return fmt.Errorf("processes %v are still alive %s after SIGKILL", left, cgroupKillTimeout)
	}
	if err := poll(func() bool {
		for pid := range killed {
			if _, err := os.Stat(fmt.Sprintf("/proc/%d", pid)); !errors.Is(err, fs.ErrNotExist) {
				return false
			}
			delete(killed, pid)
		}
		return true
	}); err != nil {
		return fmt.Errorf("processes %v were killed but are still in the process table", slices.Collect(maps.Keys(killed)))
	}
	return nil
}

// poll calls done every pollInterval until it says so, for at most
// cgroupKillTimeout.
func poll(done func() bool) error {
	return wait.PollUntilContextTimeout(context.Background(), pollInterval, cgroupKillTimeout, true,
		func(context.Context) (bool, error) { return done(), nil })
}

// pollInterval is how often poll looks.
const pollInterval = 20 * time.Millisecond

// cgroupPIDs lists the processes in dirs, each once.
func cgroupPIDs(dirs []string) []int {
	seen := map[int]bool{}
	var pids []int
	for _, d := range dirs {
		b, err := os.ReadFile(filepath.Join(d, "cgroup.procs"))
		if err != nil {
			continue
		}
		for _, f := range strings.Fields(string(b)) {
			if pid, err := strconv.Atoi(f); err == nil && !seen[pid] && pid != os.Getpid() {
				seen[pid] = true
				pids = append(pids, pid)
			}
		}
	}
	return pids
}
