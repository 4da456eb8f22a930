// Package tutorial reads docs/tutorial.md as the e2e test runs it: the
// files it shows, the commands it runs and the output it says each gives,
// and compares that output with a real run's, masking what differs from
// run to run (ages, times, addresses, quantities, counts). It also writes
// a real run's output back into the page.
//
// The page's conventions: a fenced block of kind console holds commands,
// each a line starting with "$ ", each followed by its output up to the
// next command or the block's end; a command expected to fail shows a
// line starting with "error: ". A fenced block right after a line
// "<!-- file: NAME -->" is a file the following commands read, written as
// it is shown.
package tutorial

import (
	"fmt"
	"regexp"
	"strings"
)

// Step is one file to write or one command to run, in the page's order.
type Step struct {
	// Line is where the step starts in the page, 1-based.
	Line int
	// File names the file the step writes, with Content; empty for a
	// command.
	File    string
	Content string
	// Command is the shell command, as shown after "$ ".
	Command string
	// Output is what the page says the command prints; first and end are
	// the lines (0-based, end exclusive) it takes in the page.
	Output     string
	first, end int
}

// Fails says whether the page shows the command failing.
func (s Step) Fails() bool {
	for _, l := range strings.Split(s.Output, "\n") {
		if strings.HasPrefix(l, "error: ") {
			return true
		}
	}
	return false
}

// Page is a parsed tutorial.
type Page struct {
	lines []string
	Steps []Step
}

var fileMarker = regexp.MustCompile(`^<!-- file: ([^ ]+) -->$`)

// Parse reads the steps of a tutorial page.
func Parse(text string) (*Page, error) {
	p := &Page{lines: strings.Split(text, "\n")}
	file := ""
	for i := 0; i < len(p.lines); i++ {
		line := p.lines[i]
		if m := fileMarker.FindStringSubmatch(line); m != nil {
			file = m[1]
			continue
		}
		if !strings.HasPrefix(line, "```") {
			if strings.TrimSpace(line) != "" {
				file = ""
			}
			continue
		}
		kind := strings.TrimPrefix(line, "```")
		end := closing(p.lines, i+1)
		if end < 0 {
			return nil, fmt.Errorf("line %d: a ``` block is not closed", i+1)
		}
		switch {
		case file != "":
			p.Steps = append(p.Steps, Step{Line: i + 1, File: file, Content: strings.Join(p.lines[i+1:end], "\n") + "\n"})
			file = ""
		case kind == "console":
			steps, err := commands(p.lines, i+1, end)
			if err != nil {
				return nil, err
			}
			p.Steps = append(p.Steps, steps...)
		}
		i = end
	}
	return p, nil
}

// closing is the index of the line closing a block whose first line is
// from, or -1.
func closing(lines []string, from int) int {
	for j := from; j < len(lines); j++ {
		if strings.TrimSpace(lines[j]) == "```" {
			return j
		}
	}
	return -1
}

// commands reads the commands of a console block, lines [from, end).
func commands(lines []string, from, end int) ([]Step, error) {
	var steps []Step
	for j := from; j < end; j++ {
		if !strings.HasPrefix(lines[j], "$ ") {
			if len(steps) == 0 {
				return nil, fmt.Errorf("line %d: a console block must start with a command (\"$ ...\")", j+1)
			}
			continue
		}
		k := j + 1
		for k < end && !strings.HasPrefix(lines[k], "$ ") {
			k++
		}
		steps = append(steps, Step{Line: j + 1, Command: strings.TrimPrefix(lines[j], "$ "),
			Output: join(lines[j+1 : k]), first: j + 1, end: k})
		j = k - 1
	}
	return steps, nil
}

func join(lines []string) string {
	if len(lines) == 0 {
		return ""
	}
	return strings.Join(lines, "\n") + "\n"
}

// WithOutputs returns the page with each command's output replaced by
// outputs[i] for the i-th step (files' entries are ignored), as a real run
// printed them.
func (p *Page) WithOutputs(outputs []string) string {
	var out []string
	next := 0
	for i, s := range p.Steps {
		if s.File != "" || i >= len(outputs) {
			continue
		}
		out = append(out, p.lines[next:s.first]...)
		if o := strings.TrimRight(outputs[i], "\n"); o != "" {
			out = append(out, strings.Split(o, "\n")...)
		}
		next = s.end
	}
	out = append(out, p.lines[next:]...)
	return strings.Join(out, "\n")
}

// masks replace, in this order, what differs between runs of the same
// commands on another fleet or day.
var masks = []struct {
	re   *regexp.Regexp
	with string
}{
	{regexp.MustCompile(`\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:?\d\d)?`), "<time>"},
	{regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`), "<uid>"},
	{regexp.MustCompile(`(https?://)?(\d{1,3}\.){3}\d{1,3}(:\d+)?`), "<addr>"},
	{regexp.MustCompile(`(https?://)?localhost:\d+`), "<addr>"},
	// Ages and durations (5s, 2m10s, 1.5s, 300ms) and quantities (4Gi,
	// 250m, 1500k).
	{regexp.MustCompile(`\b\d+(\.\d+)?(ms|s|m|h|d|Ki|Mi|Gi|Ti|k|M|G)(\d+(\.\d+)?(ms|s|m|h))*\b`), "<n>"},
	// Counts that depend on the machine (CPUs, pods, nodes) or on time.
	{regexp.MustCompile(`\b\d+\.\d+\b`), "<n>"},
	{regexp.MustCompile(`\b\d{2,}\b`), "<n>"},
	// Columns realign when a masked value's width changes.
	{regexp.MustCompile(`[ \t]+`), " "},
}

// Normalize masks in out what differs from run to run, and drops
// trailing spaces and blank lines at the end.
func Normalize(out string) string {
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	for i, l := range lines {
		for _, m := range masks {
			l = m.re.ReplaceAllString(l, m.with)
		}
		lines[i] = strings.TrimRight(l, " ")
	}
	return strings.Join(lines, "\n")
}
