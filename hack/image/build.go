package main

import (
	"context"
	"debug/buildinfo"
	"fmt"
	"io"
	"regexp"
	"runtime"
	"strings"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/corral-dev/corral/dev/image"
)

// BuildOptions are the options of `image build`.
type BuildOptions struct {
	Out io.Writer
	// Ref names the image: REGISTRY/corral:VERSION.
	Ref string
	// Title names the image and its program, /<Title>.
	Title                     string
	Version, Revision, Source string
	// Created is the commit's time, in seconds since the epoch.
	Created int64
	// Layout is the directory the OCI layout is written to; Archive, when
	// set, the file the archive of this machine's image is written to.
	Layout, Archive string

	release image.Release
}

// NewBuildOptions returns the defaults.
func NewBuildOptions(out io.Writer) *BuildOptions {
	return &BuildOptions{Out: out, Source: "https://github.com/corral-dev/corral"}
}

func newCmdBuild(out io.Writer) *cobra.Command {
	o := NewBuildOptions(out)
	cmd := &cobra.Command{
		Use:   "build ARCH=PROGRAM...",
		Short: "Build a release image from a static program per architecture",
		Long: `Build a release image, one static program per architecture (GOARCH) at
/<title>, its entrypoint, run as 65532:65532 (nonroot), labelled with the
version, the commit, its time and the source. Write it as an OCI layout
(an image index of every architecture) and, for this machine's
architecture, as an archive 'ctr images import' and 'corral dev load' read.
The same programs and flags make the same digest.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.Complete(args); err != nil {
				return err
			}
			if err := o.Validate(); err != nil {
				return err
			}
			return o.Run(cmd.Context())
		},
	}
	o.AddFlags(cmd.Flags())
	return cmd
}

// AddFlags adds the flags of `image build`.
func (o *BuildOptions) AddFlags(f *pflag.FlagSet) {
	f.StringVar(&o.Ref, "ref", o.Ref, "the image's name: REGISTRY/NAME:TAG")
	f.StringVar(&o.Title, "title", o.Title, "the image's title and its program's name, /<title>")
	f.StringVar(&o.Version, "version", o.Version, "the version the programs are stamped with (label org.opencontainers.image.version)")
	f.StringVar(&o.Revision, "revision", o.Revision, "the commit the programs are built from (label org.opencontainers.image.revision)")
	f.StringVar(&o.Source, "source", o.Source, "where the source is (label org.opencontainers.image.source)")
	f.Int64Var(&o.Created, "created", o.Created, "the commit's time, in seconds since the epoch: the image's time and its files'")
	f.StringVar(&o.Layout, "layout", o.Layout, "the directory to write the OCI layout to")
	f.StringVar(&o.Archive, "archive", o.Archive, "the file to write this machine's image to, as an importable archive")
}

// Complete reads the programs, ARCH=PROGRAM, into the release.
func (o *BuildOptions) Complete(args []string) error {
	o.release = image.Release{
		Title: o.Title, Version: o.Version, Revision: o.Revision, Source: o.Source,
		Created: time.Unix(o.Created, 0).UTC(), Binaries: map[string]string{},
	}
	for _, a := range args {
		arch, program, ok := strings.Cut(a, "=")
		if !ok || arch == "" || program == "" {
			return fmt.Errorf("%q: give programs as ARCH=PROGRAM (amd64=bin/corral-linux-amd64)", a)
		}
		if _, dup := o.release.Binaries[arch]; dup {
			return fmt.Errorf("two programs for %s", arch)
		}
		o.release.Binaries[arch] = program
	}
	return nil
}

// Validate refuses missing flags, and programs stamped with another
// version or commit than the labels would say.
func (o *BuildOptions) Validate() error {
	for _, f := range []struct{ flag, value string }{
		{"--ref", o.Ref}, {"--title", o.Title}, {"--version", o.Version}, {"--revision", o.Revision}, {"--layout", o.Layout},
	} {
		if f.value == "" {
			return fmt.Errorf("%s is required", f.flag)
		}
	}
	for _, program := range o.release.Binaries {
		version, commit := stampOf(program)
		if version != "" && version != o.Version || commit != "" && commit != o.Revision {
			return fmt.Errorf("%s says it is version %s, commit %s; the labels would say %s, %s: build it with the same VERSION and COMMIT",
				program, version, commit, o.Version, o.Revision)
		}
	}
	return nil
}

// stampPattern finds what `make build`'s VERSION_LDFLAGS stamp into
// internal/version, which `corral version` prints.
var stampPattern = regexp.MustCompile(`-X[= ]github\.com/corral-dev/corral/internal/version\.(version|commit)=(\S+)`)

// stampOf is the version and commit program was stamped with, from the
// -ldflags the toolchain recorded in it; none for a program not stamped,
// or not built by Go.
func stampOf(program string) (version, commit string) {
	bi, err := buildinfo.ReadFile(program)
	if err != nil {
		return "", ""
	}
	for _, s := range bi.Settings {
		if s.Key == "-ldflags" {
			return stamp(s.Value)
		}
	}
	return "", ""
}

// stamp is the version and commit ldflags stamp.
func stamp(ldflags string) (version, commit string) {
	for _, m := range stampPattern.FindAllStringSubmatch(ldflags, -1) {
		if m[1] == "version" {
			version = m[2]
		} else {
			commit = m[2]
		}
	}
	return version, commit
}

// Run builds the image and writes the layout and the archive.
func (o *BuildOptions) Run(context.Context) error {
	idx, err := o.release.Index()
	if err != nil {
		return err
	}
	if err := image.WriteLayout(o.Layout, o.Ref, idx); err != nil {
		return err
	}
	if err := describe(o.Out, o.Ref, idx); err != nil {
		return err
	}
	fmt.Fprintf(o.Out, "%s: the OCI layout\n", o.Layout)
	if o.Archive == "" {
		return nil
	}
	img, err := image.ImageFor(idx, runtime.GOARCH)
	if err != nil {
		return fmt.Errorf("no archive for this machine: %w", err)
	}
	if err := image.WriteArchive(o.Archive, o.Ref, img); err != nil {
		return err
	}
	fmt.Fprintf(o.Out, "%s: linux/%s, for ctr images import and corral dev load\n", o.Archive, runtime.GOARCH)
	return nil
}

// describe prints the index's digest, and each image's digest and sizes.
func describe(out io.Writer, ref string, idx v1.ImageIndex) error {
	d, err := idx.Digest()
	if err != nil {
		return err
	}
	m, err := idx.IndexManifest()
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "%s@%s\n", ref, d)
	for _, desc := range m.Manifests {
		img, err := idx.Image(desc.Digest)
		if err != nil {
			return err
		}
		compressed, uncompressed, err := sizes(img)
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "  %s %s: %s compressed, %s uncompressed\n", desc.Platform, desc.Digest, megabytes(compressed), megabytes(uncompressed))
	}
	return nil
}

// sizes are what img's layers weigh gzipped, as pulled, and unpacked.
func sizes(img v1.Image) (compressed, uncompressed int64, err error) {
	layers, err := img.Layers()
	if err != nil {
		return 0, 0, err
	}
	for _, l := range layers {
		size, err := l.Size()
		if err != nil {
			return 0, 0, err
		}
		rc, err := l.Uncompressed()
		if err != nil {
			return 0, 0, err
		}
		n, err := io.Copy(io.Discard, rc)
		rc.Close()
		if err != nil {
			return 0, 0, fmt.Errorf("reading a layer: %w", err)
		}
		compressed, uncompressed = compressed+size, uncompressed+n
	}
	return compressed, uncompressed, nil
}

func megabytes(n int64) string {
	return fmt.Sprintf("%.1f MB (%d bytes)", float64(n)/1e6, n)
}
