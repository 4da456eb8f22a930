package install_test

import (
	"fmt"
	"io"
	"regexp"
	"strings"
	"sync"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"
)

// logVerbosity is the V-level the recorder keeps: 4, per-object detail,
// so that a denial a component reports only as a detail is seen too.
const logVerbosity = 4

// logRecorder keeps every line logged through its loggers.
type logRecorder struct {
	mu    sync.Mutex
	lines []string
}

// logger is a logger named name whose lines r keeps.
func (r *logRecorder) logger(name string) logr.Logger {
	return funcr.New(func(prefix, args string) {
		r.mu.Lock()
		defer r.mu.Unlock()
		r.lines = append(r.lines, prefix+" "+args)
	}, funcr.Options{Verbosity: logVerbosity}).WithName(name)
}

// mark is where the lines logged from now on start.
func (r *logRecorder) mark() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.lines)
}

// since are the lines logged since mark.
func (r *logRecorder) since(mark int) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.lines[mark:]...)
}

// dump writes the last n lines to w.
func (r *logRecorder) dump(w io.Writer, n int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	from := max(0, len(r.lines)-n)
	fmt.Fprintf(w, "the last %d of %d log lines:\n", len(r.lines)-from, len(r.lines))
	for _, l := range r.lines[from:] {
		fmt.Fprintln(w, l)
	}
}

// denial matches how an API server words an authorization refusal: RBAC's
// ("configmaps is forbidden: User "…" cannot list resource "configmaps" in
// API group "" at the cluster scope"), its escalation check ("is
// attempting to grant RBAC permissions not currently held") and the work
// webhook's executor check, which asks RBAC for the hub ("may not set
// executor").
var denial = regexp.MustCompile(`(?i)forbidden|cannot \S+ resource|permissions not currently held|may not set executor`)

// maxDenials bounds how many refusals a failure lists: a missing rule
// repeats on every retry.
const maxDenials = 20

// denials are the distinct lines that report a refusal, of anyone's when
// users is empty, else of one of users; at most maxDenials.
func denials(lines []string, users ...string) []string {
	var out []string
	seen := map[string]bool{}
	for _, l := range lines {
		if !denial.MatchString(l) || seen[l] {
			continue
		}
		if len(users) == 0 || containsAny(l, users) {
			seen[l] = true
			out = append(out, l)
		}
	}
	return out[:min(len(out), maxDenials)]
}

func containsAny(s string, subs []string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}
