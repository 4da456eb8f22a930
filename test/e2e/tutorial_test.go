package e2e

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/corral-dev/corral/test/e2e/tutorial"
)

// tutorialPage is the page the spec runs, from this directory.
const tutorialPage = "../../docs/tutorial.md"

// updateTutorial, set to 1, writes the real run's outputs into the page
// instead of comparing them: CORRAL_TUTORIAL_UPDATE=1 go test ./test/e2e -ginkgo.focus tutorial
var updateTutorial = os.Getenv("CORRAL_TUTORIAL_UPDATE") == "1"

// The tutorial runs its commands as a reader would, on a fresh fleet of
// two clusters: every command's exit code and output must be what the
// page shows, up to what differs from run to run (tutorial.Normalize).
var _ = Describe("docs/tutorial.md, run on a fresh fleet", Ordered, func() {
	text, err := os.ReadFile(tutorialPage)
	if err != nil {
		It("can be read", func() { Expect(err).NotTo(HaveOccurred()) })
		return
	}
	page, err := tutorial.Parse(string(text))
	if err != nil {
		It("parses", func() { Expect(err).NotTo(HaveOccurred()) })
		return
	}
	var dir, work string
	outputs := make([]string, len(page.Steps))

	BeforeAll(func() {
		dir = newFleetDir()
		work = GinkgoT().TempDir()
		startFleet(dir, "--clusters", "2")
	})
	if updateTutorial {
		AfterAll(func() {
			Expect(os.WriteFile(tutorialPage, []byte(page.WithOutputs(outputs)), 0o644)).To(Succeed())
		})
	}

	for i, step := range page.Steps {
		if step.File != "" {
			It(fmt.Sprintf("writes %s (line %d)", step.File, step.Line), func() {
				Expect(os.WriteFile(filepath.Join(work, step.File), []byte(step.Content), 0o644)).To(Succeed())
			})
			continue
		}
		It(fmt.Sprintf("line %d: $ %s", step.Line, step.Command), func() {
			code, out := runTutorialCommand(dir, work, step.Command)
			outputs[i] = out
			if updateTutorial {
				return
			}
			if step.Fails() {
				Expect(code).NotTo(Equal(0), "the page shows it failing, and it exited 0:\n%s", out)
			} else {
				Expect(code).To(Equal(0), "the page shows it succeeding, and it exited %d:\n%s", code, out)
			}
			Expect(tutorial.Normalize(out)).To(Equal(tutorial.Normalize(step.Output)),
				"line %d of docs/tutorial.md: the output differs (CORRAL_TUTORIAL_UPDATE=1 writes the real one into the page):\n%s", step.Line, out)
		})
	}

	It("asks before removing on a terminal, and does nothing when told no", func() {
		// script(1) gives the command a pseudo-terminal, as a person has.
		cmd := "corral clusterset create pty-test && corral clusterset set pty-test --clusters cluster1"
		code, out := runOnTerminal(dir, work, cmd, "n\n")
		Expect(out).To(ContainSubstring("? [y/N]"), "it did not ask:\n%s", out)
		Expect(out).To(ContainSubstring("nothing was changed"), "answered no:\n%s", out)
		Expect(code).To(Equal(0), out)
		r := kubectl(filepath.Join(dir, "hub", "kubeconfig"), "get", "managedcluster", "cluster1",
			"-o", "jsonpath={.metadata.labels.cluster\\.open-cluster-management\\.io/clusterset}")
		Expect(r.code).To(Equal(0), "%s", r)
		Expect(r.out).NotTo(Equal("pty-test"), "answered no, yet cluster1 moved")

		code, out = runOnTerminal(dir, work, "corral clusterset set pty-test --clusters cluster1", "y\n")
		Expect(code).To(Equal(0), out)
		Eventually(func() string {
			return kubectl(filepath.Join(dir, "hub", "kubeconfig"), "get", "managedcluster", "cluster1",
				"-o", "jsonpath={.metadata.labels.cluster\\.open-cluster-management\\.io/clusterset}").out
		}).WithTimeout(cliTimeout).Should(Equal("pty-test"), "answered yes:\n%s", out)
	})
})

// tutorialEnv is the environment a tutorial command runs in: the suite's
// binaries first on the PATH, the fleet's hub as the kubeconfig.
func tutorialEnv(dir string) []string {
	return append(environ(), "PATH="+binDir+":"+os.Getenv("PATH"), "CORRAL_BIN_DIR="+binDir,
		"CORRAL_DEV_DIR="+dir, "KUBECONFIG="+filepath.Join(dir, "hub", "kubeconfig"))
}

// runTutorialCommand runs line in bash in work, with the fleet in dir
// where the page says ~/.corral/dev, and returns its exit code and its
// output (standard output and error as a terminal interleaves them) with
// dir written back as ~/.corral/dev.
func runTutorialCommand(dir, work, line string) (int, string) {
	GinkgoHelper()
	return runShell(dir, work, strings.ReplaceAll(line, "~/.corral/dev", dir), nil)
}

// runOnTerminal runs line on a pseudo-terminal (script(1)), typing input.
func runOnTerminal(dir, work, line, input string) (int, string) {
	GinkgoHelper()
	return runShell(dir, work, "script -qec "+shellQuote(line)+" /dev/null", strings.NewReader(input))
}

func runShell(dir, work, line string, stdin *strings.Reader) (int, string) {
	GinkgoHelper()
	fmt.Fprintf(GinkgoWriter, "$ %s\n", line)
	cmd := exec.Command("bash", "-c", line)
	cmd.Dir, cmd.Env = work, tutorialEnv(dir)
	if stdin != nil {
		cmd.Stdin = stdin
	}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	Expect(cmd.Start()).To(Succeed())
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(3 * time.Minute):
		_ = cmd.Process.Kill()
		<-done
		Fail(fmt.Sprintf("%s did not end within 3 minutes:\n%s", line, out.String()))
	}
	text := strings.ReplaceAll(out.String(), dir, "~/.corral/dev")
	text = strings.ReplaceAll(text, "\r\n", "\n")
	fmt.Fprint(GinkgoWriter, text)
	return cmd.ProcessState.ExitCode(), text
}

// shellQuote quotes s for bash.
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
