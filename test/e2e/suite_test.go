// Package e2e drives the corral binary and kubectl against local fleets,
// as a user would: every spec runs bin/corral in a child process and looks
// only at what a user can see — exit codes, output, files and processes.
package e2e

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/gexec"
)

// Timeouts sized for a busy 2-core machine.
const (
	// upTimeout bounds `dev up`, whose own default --timeout is 5 minutes.
	upTimeout = 6 * time.Minute
	// downTimeout bounds `dev down`, which gives the supervisor 2 minutes.
	downTimeout = 3 * time.Minute
	// cliTimeout bounds a command that does not start or stop a fleet.
	cliTimeout = 2 * time.Minute
	// goneTimeout bounds the wait for a fleet's processes to disappear.
	goneTimeout = 60 * time.Second
)

// binDir holds corral and the Kubernetes binaries; corralBin and kubectlBin
// are the two the specs run.
var binDir, corralBin, kubectlBin string

func TestE2E(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "corral e2e")
}

var _ = BeforeSuite(func() {
	var err error
	binDir, err = findBinDir()
	Expect(err).NotTo(HaveOccurred())
	for _, name := range []string{"corral", "kube-apiserver", "kubectl"} {
		if _, err := os.Stat(filepath.Join(binDir, name)); err != nil {
			Fail(fmt.Sprintf("%s is missing from %s: run make kube-tools build", name, binDir))
		}
	}
	corralBin = filepath.Join(binDir, "corral")
	kubectlBin = filepath.Join(binDir, "kubectl")
})

// findBinDir is $CORRAL_BIN_DIR, else bin/ in the nearest directory upwards
// from the working directory that has a go.mod.
func findBinDir() (string, error) {
	if dir := os.Getenv("CORRAL_BIN_DIR"); dir != "" {
		return filepath.Abs(dir)
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for dir := wd; ; dir = filepath.Dir(dir) {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return filepath.Join(dir, "bin"), nil
		}
		if filepath.Dir(dir) == dir {
			return "", fmt.Errorf("no go.mod above %s and CORRAL_BIN_DIR is not set: run make kube-tools build", wd)
		}
	}
}

// result is what a finished command left.
type result struct {
	code        int
	out, errOut string
}

// String shows the whole result in failure messages.
func (r result) String() string {
	return fmt.Sprintf("exit code %d\n--- stdout:\n%s--- stderr:\n%s", r.code, r.out, r.errOut)
}

// command says what to run: a binary, its arguments and extra environment.
type command struct {
	bin     string
	args    []string
	env     []string
	timeout time.Duration
}

// corral runs bin/corral with args, with CORRAL_BIN_DIR pointing at the
// suite's binaries.
func corral(timeout time.Duration, args ...string) result {
	GinkgoHelper()
	return command{bin: corralBin, args: args, timeout: timeout}.run()
}

// kubectl runs bin/kubectl against the cluster whose kubeconfig is given.
func kubectl(kubeconfig string, args ...string) result {
	GinkgoHelper()
	return command{bin: kubectlBin, args: append([]string{"--kubeconfig", kubeconfig}, args...), timeout: cliTimeout}.run()
}

// run runs c to the end, its output also going to the GinkgoWriter, and
// fails the spec if it does not end within c.timeout.
func (c command) run() result {
	GinkgoHelper()
	cmd := exec.Command(c.bin, c.args...)
	cmd.Env = append(environ(), "CORRAL_BIN_DIR="+binDir)
	cmd.Env = append(cmd.Env, c.env...) // later entries win
	name := filepath.Base(c.bin)
	fmt.Fprintf(GinkgoWriter, "$ %s %s\n", name, strings.Join(c.args, " "))
	session, err := gexec.Start(cmd,
		gexec.NewPrefixedWriter("["+name+"] ", GinkgoWriter),
		gexec.NewPrefixedWriter("["+name+" stderr] ", GinkgoWriter))
	Expect(err).NotTo(HaveOccurred())
	defer session.Kill() // only if it outlived the timeout
	Eventually(session, c.timeout).Should(gexec.Exit(), "%s %v did not exit within %s", name, c.args, c.timeout)
	return result{code: session.ExitCode(), out: string(session.Out.Contents()), errOut: string(session.Err.Contents())}
}

// environ is this process's environment without the variables that would
// point corral somewhere else than the specs say.
func environ() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "CORRAL_BIN_DIR=") && !strings.HasPrefix(kv, "CORRAL_DEV_DIR=") &&
			!strings.HasPrefix(kv, "KUBECONFIG=") {
			env = append(env, kv)
		}
	}
	return env
}

// newFleetDir returns a fleet directory that does not exist yet, inside a
// temporary directory removed after the spec (or the Ordered container).
func newFleetDir() string {
	return filepath.Join(GinkgoT().TempDir(), "fleet")
}

// startFleet runs `corral dev up` in dir and expects it to succeed; whatever
// happens, `corral dev down` runs on dir when the spec or container ends.
func startFleet(dir string, args ...string) result {
	GinkgoHelper()
	DeferCleanup(func() {
		r := corral(downTimeout, "dev", "down", "--dir", dir)
		Expect(r.code).To(Equal(0), "cleanup: corral dev down --dir %s:\n%s", dir, r)
	})
	r := corral(upTimeout, append([]string{"dev", "up", "--dir", dir}, args...)...)
	Expect(r.code).To(Equal(0), "corral dev up --dir %s %v:\n%s", dir, args, r)
	Expect(r.out+r.errOut).NotTo(MatchRegexp(`(?m)^[IWEF]\d{4} \d\d:\d\d:\d\d`), "dev up shows people what happens; the controllers' log lines belong in their own file")
	return r
}

// processesMentioning lists the processes, other than this one, whose command
// line contains s, as "pid: command line".
func processesMentioning(s string) []string {
	entries, err := os.ReadDir("/proc")
	Expect(err).NotTo(HaveOccurred())
	var found []string
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil { // it exited meanwhile
			continue
		}
		if bytes.Contains(b, []byte(s)) {
			found = append(found, fmt.Sprintf("%d: %s", pid, bytes.ReplaceAll(bytes.TrimRight(b, "\x00"), []byte{0}, []byte{' '})))
		}
	}
	return found
}

// expectNoProcessLeft waits until no process mentions dir.
func expectNoProcessLeft(dir string) {
	GinkgoHelper()
	Eventually(func() []string { return processesMentioning(dir) }).
		WithTimeout(goneTimeout).WithPolling(500*time.Millisecond).
		Should(BeEmpty(), "processes of the fleet in %s are still running", dir)
}

// expectOneLineError expects r to be a failure that said one line on stderr
// containing every one of want, and returns that line.
func expectOneLineError(r result, want ...string) string {
	GinkgoHelper()
	Expect(r.code).NotTo(Equal(0), "expected a failure:\n%s", r)
	Expect(r.errOut).To(HaveSuffix("\n"), "stderr:\n%s", r)
	line := strings.TrimSuffix(r.errOut, "\n")
	Expect(line).NotTo(BeEmpty(), "stderr:\n%s", r)
	Expect(line).NotTo(ContainSubstring("\n"), "expected exactly one line on stderr:\n%s", r)
	for _, w := range want {
		Expect(line).To(ContainSubstring(w))
	}
	return line
}

// exists reports whether path exists.
func exists(path string) bool {
	_, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false
	}
	Expect(err).NotTo(HaveOccurred())
	return true
}
