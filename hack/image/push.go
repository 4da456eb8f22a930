package main

import (
	"context"
	"fmt"
	"io"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/corral-dev/corral/dev/image"
)

// PushOptions are the options of `image push`.
type PushOptions struct {
	Out io.Writer
	// Layout is the OCI layout `image build` wrote.
	Layout string
	// Ref is where to push it; empty means the name it was built with.
	Ref string
	// Insecure allows a registry served over plain HTTP.
	Insecure bool
}

// NewPushOptions returns the defaults.
func NewPushOptions(out io.Writer) *PushOptions {
	return &PushOptions{Out: out}
}

func newCmdPush(out io.Writer) *cobra.Command {
	o := NewPushOptions(out)
	cmd := &cobra.Command{
		Use:   "push LAYOUT",
		Short: "Push the image of an OCI layout 'image build' wrote to a registry",
		Long: `Push the image index of an OCI layout 'image build' wrote, with every
architecture's image, to REGISTRY/NAME:TAG (--ref, default: the name it was
built with). Credentials are Docker's: 'docker login' or a credential
helper in ~/.docker/config.json ($DOCKER_CONFIG), else anonymous.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Layout = args[0]
			return o.Run(cmd.Context())
		},
	}
	o.AddFlags(cmd.Flags())
	return cmd
}

// AddFlags adds the flags of `image push`.
func (o *PushOptions) AddFlags(f *pflag.FlagSet) {
	f.StringVar(&o.Ref, "ref", o.Ref, "where to push the image, REGISTRY/NAME:TAG (default: the name it was built with)")
	f.BoolVar(&o.Insecure, "insecure", o.Insecure, "allow a registry served over plain HTTP")
}

// Run pushes the layout's image index and says its digest and sizes.
func (o *PushOptions) Run(ctx context.Context) error {
	built, idx, err := image.ReadLayout(o.Layout)
	if err != nil {
		return err
	}
	ref := o.Ref
	if ref == "" {
		ref = built
	}
	var opts []name.Option
	if o.Insecure {
		opts = append(opts, name.Insecure)
	}
	tag, err := name.NewTag(ref, opts...)
	if err != nil {
		return err
	}
	if err := remote.WriteIndex(tag, idx, remote.WithContext(ctx), remote.WithAuthFromKeychain(authn.DefaultKeychain)); err != nil {
		return fmt.Errorf("pushing %s: %w", ref, err)
	}
	fmt.Fprint(o.Out, "pushed ")
	return describe(o.Out, ref, idx)
}
