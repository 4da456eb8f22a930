package main

import (
	"context"
	"io"
	"path/filepath"
	"strings"
	"testing"
)

func TestBadInputSaysWhichFlag(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "nothing")
	cases := map[string]struct {
		args []string
		want []string
	}{
		"manager without an image":  {args: []string{"manager"}, want: []string{"--agent-image"}},
		"agent without its cluster": {args: []string{"agent"}, want: []string{"--cluster-name"}},
		"agent without credentials": {
			args: []string{"agent", "--cluster-name", "c1", "--hub-kubeconfig", missing},
			want: []string{"--hub-kubeconfig", missing, "hello-hub-kubeconfig"},
		},
		"agent with an empty --hub-kubeconfig": {
			args: []string{"agent", "--cluster-name", "c1", "--hub-kubeconfig", ""},
			want: []string{"--hub-kubeconfig is empty"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			cmd := newRootCmd()
			cmd.SetArgs(tc.args)
			cmd.SetOut(io.Discard)
			cmd.SetErr(io.Discard)
			err := cmd.ExecuteContext(context.Background())
			if err == nil {
				t.Fatal("no error")
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error %q is more than one line", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
		})
	}
}
