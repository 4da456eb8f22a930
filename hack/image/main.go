// Command image builds corral's release images with no Docker, from
// programs built beforehand, and pushes them; `make image` and `make push`
// run it. The images are made by dev/image, as the local fleet's are.
//
//	go run ./hack/image build --title corral --ref ghcr.io/corral-dev/corral:v1 \
//	    --version v1 --revision COMMIT --created UNIX_TIME \
//	    --layout bin/image/corral --archive bin/image/corral.tar \
//	    amd64=bin/corral-linux-amd64 arm64=bin/corral-linux-arm64
//	go run ./hack/image push [--insecure] [--ref REF] bin/image/corral
//
// It is not linked into bin/corral: pushing needs go-containerregistry's
// remote package, which brings Docker's credential helpers.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	root := &cobra.Command{
		Use:           "image",
		Short:         "Build corral's release images with no Docker, and push them",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.AddCommand(newCmdBuild(os.Stdout), newCmdPush(os.Stdout))
	if err := root.ExecuteContext(ctx); err != nil {
		fmt.Fprintf(os.Stderr, "image: %v\n", err)
		stop()
		os.Exit(1)
	}
}
