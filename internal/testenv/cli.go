package testenv

import (
	"bytes"
	"context"
	"io"
	"path/filepath"

	"github.com/spf13/cobra"
	"k8s.io/client-go/tools/clientcmd"
)

// RunCommand runs the command newCmd builds with args, as the corral
// binary runs it for a user, and returns what it printed (out and err
// together) and its error, which the command does not print itself.
func RunCommand(ctx context.Context, newCmd func(out io.Writer) *cobra.Command, args ...string) (string, error) {
	var out bytes.Buffer
	cmd := newCmd(&out)
	cmd.SetArgs(args)
	cmd.SetOut(&out)
	cmd.SetErr(&out)
	cmd.SilenceUsage, cmd.SilenceErrors = true, true
	err := cmd.ExecuteContext(ctx)
	return out.String(), err
}

// KubeconfigAs writes into dir a copy of kubeconfig that impersonates user
// (in system:authenticated), for running the CLI as that user, and
// returns its path.
func KubeconfigAs(kubeconfig, dir, user string) (string, error) {
	cfg, err := clientcmd.LoadFromFile(kubeconfig)
	if err != nil {
		return "", err
	}
	for _, auth := range cfg.AuthInfos {
		auth.Impersonate, auth.ImpersonateGroups = user, []string{"system:authenticated"}
	}
	path := filepath.Join(dir, "kubeconfig-"+user)
	return path, clientcmd.WriteToFile(*cfg, path)
}
