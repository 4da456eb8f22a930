package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/corral-dev/corral/dev/fleet"
	"github.com/corral-dev/corral/dev/image"
	"github.com/corral-dev/corral/dev/localcluster"
)

// LoadOptions are the options of `corral dev load`.
type LoadOptions struct {
	Streams
	Dir string
	// Clusters are the clusters to load into; none means all.
	Clusters []string
	// Images are archives, or names of images in podman's store.
	Images []string
}

func newCmdLoad(streams Streams) *cobra.Command {
	o := &LoadOptions{Streams: streams, Dir: fleet.DefaultDir()}
	cmd := &cobra.Command{
		Use:   "load IMAGE...",
		Short: "Load container images into the real nodes of the local fleet",
		Long: `Load container images into the real node of every cluster of the local fleet
that has one (the hub has none, unless the fleet runs --no-corral), or of
those --cluster names, as 'kind load' does: nothing is pulled on
this machine, so a pod runs only an image loaded here. Give it an image
archive (the tar 'docker save', 'podman save' or 'ctr images export'
writes, or bin/image/corral.tar, which 'make image' writes), an OCI layout
'make image' wrote (bin/image/corral: this machine's image of it), or the
name of an image in podman's store, which is saved first.

A pod then runs it by that name; give it imagePullPolicy: IfNotPresent or
Never, or a tag other than latest.`,
		Example: `  podman build --storage-driver vfs -t localhost/me/app:v1 .
  corral dev load localhost/me/app:v1
  corral dev load app.tar --cluster cluster1
  make image && corral dev load bin/image/corral.tar`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Images = args
			if err := o.Validate(); err != nil {
				return err
			}
			return o.Run(cmd.Context())
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.Dir, "dir", o.Dir, "the fleet's directory (env "+fleet.DirEnv+")")
	f.StringSliceVar(&o.Clusters, "cluster", nil, "a cluster to load into, repeatable (default: every cluster with a real node)")
	return cmd
}

// Validate makes the directory absolute.
func (o *LoadOptions) Validate() error {
	dir, err := filepath.Abs(o.Dir)
	o.Dir = dir
	return err
}

// Run saves what is named, then loads every archive into every chosen
// cluster's real node.
func (o *LoadOptions) Run(ctx context.Context) error {
	state, err := fleet.ReadState(o.Dir)
	if err != nil {
		return fmt.Errorf("%w: start one with 'corral dev up --dir %s'", err, o.Dir)
	}
	if !localcluster.Locked(o.Dir) {
		return fmt.Errorf("the fleet in %s is not running: start it with 'corral dev up --dir %s'", o.Dir, o.Dir)
	}
	targets, err := o.targets(state)
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "corral-load-")
	if err != nil {
		return err
	}
	defer func() { _ = os.RemoveAll(tmp) }()
	archives := make([]string, len(o.Images))
	for i, img := range o.Images {
		if archives[i], err = archive(ctx, img, tmp, i); err != nil {
			return err
		}
	}
	for _, c := range targets {
		for i, a := range archives {
			if err := fleet.Load(ctx, c, a); err != nil {
				return err
			}
			fmt.Fprintf(o.Out, "%s: loaded %s into %s\n", c.Name, o.Images[i], c.Node)
		}
	}
	return nil
}

// targets are the clusters to load into: those named, each of which must
// have a real node, else every cluster that has one (the hub has none
// unless the fleet runs --no-corral).
func (o *LoadOptions) targets(state *fleet.State) ([]fleet.ClusterState, error) {
	var out []fleet.ClusterState
	var names []string
	for _, c := range state.Clusters {
		names = append(names, c.Name)
		if slices.Contains(o.Clusters, c.Name) || (len(o.Clusters) == 0 && c.Node != "") {
			out = append(out, c)
		}
	}
	for _, want := range o.Clusters {
		if !slices.Contains(names, want) {
			return nil, fmt.Errorf("--cluster %s: the fleet has no such cluster; it has %s", want, strings.Join(names, ", "))
		}
	}
	for _, c := range out {
		if c.Node == "" {
			return nil, fmt.Errorf("cluster %s has no real node to load images into: start the fleet with --real-nodes", c.Name)
		}
	}
	if len(out) == 0 {
		return nil, errors.New("no cluster of the fleet has a real node to load images into: start the fleet with --real-nodes")
	}
	return out, nil
}

// archive is img if it is a file, or the archive of this machine's image
// of the OCI layout img names, written in dir; otherwise img is an image
// in podman's store, saved to an archive in dir.
func archive(ctx context.Context, img, dir string, i int) (string, error) {
	path := filepath.Join(dir, fmt.Sprintf("image-%d.tar", i))
	if st, err := os.Stat(img); err == nil && !st.IsDir() {
		return img, nil
	} else if err == nil {
		return path, layoutArchive(img, path)
	}
	podman, err := exec.LookPath("podman")
	if err != nil {
		return "", fmt.Errorf("%s is not a file, and without podman it cannot be an image name: give an image archive (docker save, podman save)", img)
	}
	out, err := exec.CommandContext(ctx, podman, "save", "--format", "docker-archive", "-o", path, img).CombinedOutput()
	if err != nil {
		return "", errors.New(img + " is neither a file nor an image podman has: " + firstLine(strings.TrimSpace(string(out))))
	}
	return path, nil
}

// layoutArchive writes the archive of this machine's image of the OCI
// layout in dir (as `make image` writes) to path, named as it was built.
func layoutArchive(dir, path string) error {
	ref, idx, err := image.ReadLayout(dir)
	if err != nil {
		return fmt.Errorf("%s is a directory but no OCI layout of one image: %w", dir, err)
	}
	img, err := image.ImageFor(idx, runtime.GOARCH)
	if err != nil {
		return fmt.Errorf("%s: %w", dir, err)
	}
	return image.WriteArchive(path, ref, img)
}
