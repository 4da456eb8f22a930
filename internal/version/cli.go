package version

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/corral-dev/corral/internal/output"
)

// NewCommand returns `corral version`.
func NewCommand(out io.Writer) *cobra.Command {
	var format string
	var short bool
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print corral's version and the commit it was built from",
		Long: `Print corral's version, the commit it was built from, and the Go version and
platform of the build. 'make build' stamps the version (git describe) and the
commit; a binary built otherwise reports what Go recorded, or "dev".`,
		Example: `  corral version
  corral version -o json
  helm install ... --set image.tag=$(corral version --short)`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			if err := output.Validate(format); err != nil {
				return err
			}
			i := Get()
			if short {
				_, err := fmt.Fprintln(out, i.Version)
				return err
			}
			return output.Print(out, format, i, func(w io.Writer) { fmt.Fprintln(w, i) })
		},
	}
	output.AddFlag(cmd.Flags(), &format)
	cmd.Flags().BoolVar(&short, "short", false, "print the version alone (the image tag of this build)")
	return cmd
}
