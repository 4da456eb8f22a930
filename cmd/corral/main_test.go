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
	root := newRootCommand()
	root.SetArgs([]string{"work"})
	root.SetOut(io.Discard)
	if err := root.ExecuteContext(context.Background()); err != nil {
		t.Errorf("corral work: %v, want its help", err)
	}
}
