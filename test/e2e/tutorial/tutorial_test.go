package tutorial

import (
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const page = "# A tutorial\n" +
	"\n" +
	"<!-- file: web.yaml -->\n" +
	"```yaml\n" +
	"kind: ConfigMap\n" +
	"```\n" +
	"\n" +
	"```console\n" +
	"$ corral get clusters\n" +
	"NAME AGE\n" +
	"c1   5m\n" +
	"$ corral clusterset set prod --clusters c1\n" +
	"error: not asked on a terminal\n" +
	"```\n" +
	"\n" +
	"```yaml\n" +
	"$ not a command: not a console block\n" +
	"```\n" +
	"```console\n" +
	"$ true\n" +
	"```\n"

func TestParseTutorial(t *testing.T) {
	p, err := Parse(page)
	if err != nil {
		t.Fatal(err)
	}
	want := []Step{
		{Line: 4, File: "web.yaml", Content: "kind: ConfigMap\n"},
		{Line: 9, Command: "corral get clusters", Output: "NAME AGE\nc1   5m\n", first: 9, end: 11},
		{Line: 12, Command: "corral clusterset set prod --clusters c1", Output: "error: not asked on a terminal\n", first: 12, end: 13},
		{Line: 20, Command: "true", first: 20, end: 20},
	}
	if d := cmp.Diff(want, p.Steps, cmp.AllowUnexported(Step{})); d != "" {
		t.Errorf("steps (-want +got):\n%s", d)
	}
	for i, fails := range []bool{false, false, true, false} {
		if p.Steps[i].Fails() != fails {
			t.Errorf("step %d: Fails() = %v, want %v", i, !fails, fails)
		}
	}
}

func TestParseTutorialRefusesBrokenPages(t *testing.T) {
	cases := map[string]struct{ page, err string }{
		"an unclosed block":               {page: "```console\n$ true\n", err: "line 1: a ``` block is not closed"},
		"output before the first command": {page: "```console\noutput\n$ true\n```\n", err: "line 2: a console block must start"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := Parse(tc.page)
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Fatalf("Parse = %v, want an error containing %q", err, tc.err)
			}
		})
	}
}

func TestWithOutputsRewritesOnlyOutputs(t *testing.T) {
	p, err := Parse(page)
	if err != nil {
		t.Fatal(err)
	}
	got := p.WithOutputs([]string{"ignored", "NAME AGE\nc1   7m\nc2   1m\n", "error: refused\n", "hi\n"})
	want := strings.NewReplacer("c1   5m\n", "c1   7m\nc2   1m\n", "error: not asked on a terminal", "error: refused",
		"$ true\n", "$ true\nhi\n").Replace(page)
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("page (-want +got):\n%s", d)
	}
	again, err := Parse(got)
	if err != nil {
		t.Fatal(err)
	}
	if len(again.Steps) != len(p.Steps) || again.Steps[1].Output != "NAME AGE\nc1   7m\nc2   1m\n" {
		t.Errorf("the rewritten page parses to other steps: %+v", again.Steps)
	}
}

func TestNormalizeOutput(t *testing.T) {
	cases := map[string]struct{ a, b string }{
		"ages and column widths": {
			a: "NAME      AGE\ncluster1  5m\ncluster2  2m10s\n",
			b: "NAME      AGE\ncluster1  45s\ncluster2  1h\n",
		},
		"quantities and CPU counts": {
			a: "cluster1  True  16  31Gi  250m\n",
			b: "cluster1  True  34  23Gi  1500m\n",
		},
		"addresses and times": {
			a: "hub https://127.0.0.1:41234 at 2026-12-04T20:41:02Z\n",
			b: "hub https://127.0.0.1:35001 at 2026-12-05T01:02:03Z\n",
		},
		"durations":                       {a: "ready after 0.4s\n", b: "ready after 12.25s\n"},
		"trailing blank lines and spaces": {a: "done  \n\n", b: "done\n"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if a, b := Normalize(tc.a), Normalize(tc.b); a != b {
				t.Errorf("Normalize differs:\n%q\n%q", a, b)
			}
		})
	}
	differ := map[string]struct{ a, b string }{
		"a status":          {a: "cluster1  True\n", b: "cluster1  False\n"},
		"a cluster name":    {a: "cluster1\n", b: "cluster2\n"},
		"a one-digit count": {a: "selects 2 of 2 clusters\n", b: "selects 1 of 2 clusters\n"},
		"a line more":       {a: "a\n", b: "a\nb\n"},
		"an error or not":   {a: "error: no\n", b: "done\n"},
	}
	for name, tc := range differ {
		t.Run("tells apart "+name, func(t *testing.T) {
			if Normalize(tc.a) == Normalize(tc.b) {
				t.Errorf("Normalize makes %q and %q the same", tc.a, tc.b)
			}
		})
	}
}

// TestTheTutorialParses: the page itself is well-formed, runs at least one
// command, and shows only commands of corral, kubectl and the shell.
func TestTheTutorialParses(t *testing.T) {
	b, err := os.ReadFile("../../../docs/tutorial.md")
	if err != nil {
		t.Fatal(err)
	}
	p, err := Parse(string(b))
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Steps) == 0 {
		t.Fatal("docs/tutorial.md has no steps")
	}
}
