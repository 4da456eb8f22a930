// Package confirm is how every corral verb that can remove something from
// a cluster asks before it does: the verb computes its effect first, this
// package shows it and decides whether to go ahead. On a terminal it asks
// [y/N]; --yes goes ahead without asking; off a terminal, an effect that
// removes something is refused without --yes, so a script never removes
// by surprise; --dry-run shows the effect and changes nothing. An effect
// that removes nothing goes ahead without a question.
package confirm

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/pflag"
	"golang.org/x/term"
)

// Options are --yes and --dry-run, and where the question is asked.
type Options struct {
	// Yes goes ahead without asking.
	Yes bool
	// DryRun shows the effect and changes nothing.
	DryRun bool
	// In is where the answer is read; Terminal says whether a person is
	// there to answer. NewOptions sets them to standard input.
	In       io.Reader
	Terminal bool
}

// NewOptions asks on standard input when a person is there to see the
// question and answer it: standard input and output both terminals (with
// the output in a file, nobody would see the question).
func NewOptions() Options {
	return Options{In: os.Stdin, Terminal: term.IsTerminal(int(os.Stdin.Fd())) && term.IsTerminal(int(os.Stdout.Fd()))}
}

// AddFlags registers --yes/-y and --dry-run.
func (o *Options) AddFlags(fs *pflag.FlagSet) {
	fs.BoolVarP(&o.Yes, "yes", "y", o.Yes, "go ahead without asking (needed off a terminal when something would be removed)")
	fs.BoolVar(&o.DryRun, "dry-run", o.DryRun, "show what would be done, and change nothing")
}

// AddDryRunFlag registers --dry-run alone, for a verb that removes
// nothing and so never asks.
func (o *Options) AddDryRunFlag(fs *pflag.FlagSet) {
	fs.BoolVar(&o.DryRun, "dry-run", o.DryRun, "show what would be done, and change nothing")
}

// Effect is what a verb will do, computed before it does anything.
type Effect struct {
	// Verb says what is asked, for the question and the refusal, e.g.
	// "move cluster2 to cluster set prod".
	Verb string
	// Removes are what goes away from clusters or the hub, one line each
	// (e.g. "placement team-a/web drops cluster2; work web leaves it").
	// None means nothing is asked.
	Removes []string
	// Changes are the rest of what the verb does, one line each, shown
	// before Removes.
	Changes []string
}

// Ask shows e on out and says whether the verb goes ahead. It returns
// false, with no error, for --dry-run and for a person who answered no;
// it returns an error, naming the flag to pass, off a terminal when e
// removes something and --yes was not given.
func (o Options) Ask(out io.Writer, e Effect) (bool, error) {
	if len(e.Removes) == 0 {
		if o.DryRun {
			show(out, e)
			fmt.Fprintln(out, "dry run: nothing was changed")
			return false, nil
		}
		return true, nil
	}
	show(out, e)
	switch {
	case o.DryRun:
		fmt.Fprintln(out, "dry run: nothing was changed")
		return false, nil
	case o.Yes:
		return true, nil
	case !o.Terminal || o.In == nil:
		return false, fmt.Errorf("not asked on a terminal, so refusing to %s: it removes what is listed above; pass --yes to go ahead (--dry-run only shows it); nothing was changed", e.Verb)
	}
	fmt.Fprintf(out, "%s? [y/N] ", capitalize(e.Verb))
	answer, _ := bufio.NewReader(o.In).ReadString('\n')
	switch strings.ToLower(strings.TrimSpace(answer)) {
	case "y", "yes":
		return true, nil
	}
	fmt.Fprintln(out, "nothing was changed")
	return false, nil
}

// show prints what e changes and removes.
func show(out io.Writer, e Effect) {
	for _, l := range e.Changes {
		fmt.Fprintln(out, l)
	}
	if len(e.Removes) == 0 {
		return
	}
	fmt.Fprintln(out, "This removes:")
	for _, l := range e.Removes {
		fmt.Fprintf(out, "  - %s\n", l)
	}
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
