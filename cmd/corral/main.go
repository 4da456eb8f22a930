// Command corral is the corral multi-cluster manager: the CLI verbs and the
// run modes of its hub and agent.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"

	"github.com/spf13/cobra"
	"k8s.io/klog/v2"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/corral-dev/corral/addons/builtin"
	addoncli "github.com/corral-dev/corral/addons/cli"
	corralagent "github.com/corral-dev/corral/agent"
	fleetcli "github.com/corral-dev/corral/dev/cli"
	corralhub "github.com/corral-dev/corral/hub"
	"github.com/corral-dev/corral/internal/clientgates"
	"github.com/corral-dev/corral/internal/rsstrim"
	"github.com/corral-dev/corral/internal/version"
	placementcli "github.com/corral-dev/corral/placement/cli"
	propagationcli "github.com/corral-dev/corral/propagation/cli"
	registrationcli "github.com/corral-dev/corral/registration/cli"
	workcli "github.com/corral-dev/corral/work/cli"
)

func main() {
	// Best-effort, before anything else runs: it only lowers the RSS.
	_ = rsstrim.Trim()
	clientgates.Set()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	logger := klog.NewKlogr()
	ctrl.SetLogger(logger)
	ctx = klog.NewContext(ctx, logger)
	if err := newRootCommand().ExecuteContext(ctx); err != nil {
		fmt.Fprintf(os.Stderr, "error: %v\n", err)
		os.Exit(1)
	}
}

func newRootCommand() *cobra.Command {
	streams := fleetcli.Streams{Out: os.Stdout, ErrOut: os.Stderr}
	root := &cobra.Command{
		Use:   "corral",
		Short: "corral manages a fleet of Kubernetes clusters from one hub",
		Long: `corral manages a fleet of Kubernetes clusters from one hub, speaking the
Open Cluster Management APIs: clusters join with a double handshake, and
everything beyond registration is an addon you install on demand.`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	klogFlags := flag.NewFlagSet("klog", flag.ExitOnError)
	klog.InitFlags(klogFlags)
	root.PersistentFlags().AddGoFlag(klogFlags.Lookup("v"))
	get := &cobra.Command{Use: "get", Short: "Show clusters, a join token, and the installed hub and agents"}
	get.AddCommand(registrationcli.NewCmdGetClusters(streams.Out), registrationcli.NewCmdGetToken(streams.Out),
		registrationcli.NewCmdGetHubInfo(streams.Out), registrationcli.NewCmdGetAgentInfo(streams.Out))
	root.AddCommand(
		fleetcli.NewCmdDev(streams),
		registrationcli.NewCmdInit(streams.Out),
		registrationcli.NewCmdClean(streams.Out),
		registrationcli.NewCmdAccept(streams.Out),
		registrationcli.NewCmdDeny(streams.Out),
		registrationcli.NewCmdJoin(streams.Out, builtin.All()...),
		registrationcli.NewCmdUnjoin(streams.Out),
		registrationcli.NewCmdClusterSet(streams.Out),
		addoncli.NewCmdAddon(streams.Out, builtin.All()...),
		workcli.NewCmdWork(streams.Out),
		placementcli.NewCmdPlacement(streams.Out),
		propagationcli.NewCmdPropagate(streams.Out), propagationcli.NewCmdPropagation(streams.Out),
		get,
		corralhub.NewCommand(builtin.All()...),
		corralagent.NewCommand(streams.Out, builtin.All()...),
		version.NewCommand(streams.Out),
	)
	refuseUnknownSubcommands(root)
	return root
}

// refuseUnknownSubcommands makes every command that only groups others
// (corral get, corral work…) refuse a word that is none of them, as
// kubectl does, instead of printing its help and exiting 0, and suggest
// the subcommand meant; without one it still prints its help. The group's
// parser lets unknown flags through, so that the flags of the verb meant
// (corral work creat -f web.yaml) do not hide the typo.
func refuseUnknownSubcommands(cmd *cobra.Command) {
	for _, sub := range cmd.Commands() {
		refuseUnknownSubcommands(sub)
	}
	if cmd.HasParent() && cmd.HasSubCommands() && !cmd.Runnable() {
		cmd.FParseErrWhitelist.UnknownFlags = true
		cmd.SuggestionsMinimumDistance = 2
		cmd.Args = unknownSubcommand
		cmd.RunE = func(c *cobra.Command, _ []string) error { return c.Help() }
	}
}

// unknownSubcommand refuses any word given to a command that only groups
// others, in one line, with the subcommands it may have meant.
func unknownSubcommand(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	msg := fmt.Sprintf("unknown command %q for %q", args[0], cmd.CommandPath())
	if s := cmd.SuggestionsFor(args[0]); len(s) > 0 {
		for i := range s {
			s[i] = strconv.Quote(s[i])
		}
		return fmt.Errorf("%s: did you mean %s?", msg, strings.Join(s, " or "))
	}
	return fmt.Errorf("%s: '%s --help' lists its commands", msg, cmd.CommandPath())
}
