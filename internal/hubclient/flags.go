package hubclient

import "github.com/spf13/pflag"

// AddClustersFlag registers --clusters, into clusters: the one spelling
// of "which clusters" on every verb. --cluster is the same flag, so that
// either spelling works wherever one is taken.
func AddClustersFlag(fs *pflag.FlagSet, clusters *[]string, usage string) {
	fs.StringSliceVar(clusters, "clusters", *clusters, usage+" (comma-separated or repeated; --cluster is the same)")
	prev := fs.GetNormalizeFunc()
	fs.SetNormalizeFunc(func(f *pflag.FlagSet, name string) pflag.NormalizedName {
		if name == "cluster" {
			name = "clusters"
		}
		return prev(f, name)
	})
}
