package main

import (
	"context"
	"io"
	"strings"
	"testing"
)

// TestUnknownSubcommandsAreRefused: a word that is no subcommand of a
// command that only groups others is an error, not its help and exit 0.
func TestUnknownSubcommandsAreRefused(t *testing.T) {
	for _, args := range [][]string{{"get", "pods"}, {"work", "bogus"}, {"clusterset", "list"}, {"addon", "ls"}, {"bogus"}} {
		root := newRootCommand()
		root.SetArgs(args)
		root.SetOut(io.Discard)
		err := root.ExecuteContext(context.Background())
		if err == nil || !strings.Contains(err.Error(), `unknown command "`+args[len(args)-1]+`"`) {
			t.Errorf("corral %s: %v, want an unknown command error", strings.Join(args, " "), err)
		}
	}
	for args, want := range map[string]string{
		"work creat -f web.yaml --clusters c1": `unknown command "creat" for "corral work": did you mean "create"?`,
		"addon enabel work":                    `unknown command "enabel" for "corral addon": did you mean "enable"?`,
		"get tokn":                             `unknown command "tokn" for "corral get": did you mean "token"?`,
		"clusterset lst":                       `unknown command "lst" for "corral clusterset": did you mean "get" or "set"?`,
		"work zzz":                             `unknown command "zzz" for "corral work": 'corral work --help' lists its commands`,
	} {
		root := newRootCommand()
		root.SetArgs(strings.Fields(args))
		root.SetOut(io.Discard)
		if err := root.ExecuteContext(context.Background()); err == nil || err.Error() != want {
			t.Errorf("corral %s: %v, want %q", args, err, want)
		}
	}
	root := newRootCommand()
	root.SetArgs([]string{"work"})
	root.SetOut(io.Discard)
	if err := root.ExecuteContext(context.Background()); err != nil {
		t.Errorf("corral work: %v, want its help", err)
	}
}
