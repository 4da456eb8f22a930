package cli

import (
	"context"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/spf13/pflag"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	workv1 "open-cluster-management.io/api/work/v1"
	workv1alpha1 "open-cluster-management.io/api/work/v1alpha1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/corral-dev/corral/internal/hubclient"
	"github.com/corral-dev/corral/internal/hubclient/hubclienttest"
	"github.com/corral-dev/corral/internal/testing/builder"
)

// TestGetFlags: --cluster and --clusters are one flag; the views are one
// at a time.
func TestGetFlags(t *testing.T) {
	cases := map[string]struct {
		args []string
		want GetOptions
		err  string
	}{
		"--cluster":           {args: []string{"--cluster", "c1", "--cluster", "c2", "-w"}, want: GetOptions{Clusters: []string{"c1", "c2"}, Watch: true}},
		"--clusters":          {args: []string{"--clusters", "c1,c2"}, want: GetOptions{Clusters: []string{"c1", "c2"}}},
		"-A":                  {args: []string{"-A"}, want: GetOptions{AllNamespaces: true}},
		"--clusters and -A":   {args: []string{"--clusters", "c1", "-A"}, err: "--clusters shows clusters' ManifestWorks and -n or -A namespaces' ManifestWorkReplicaSets: give one of them"},
		"-n and -A":           {args: []string{"-n", "apps", "-A"}, err: "-n shows one namespace's ManifestWorkReplicaSets and -A every namespace's: give one of them"},
		"a bad cluster name":  {args: []string{"--cluster", "C_1"}, err: `"C_1" is not a cluster name`},
		"a bad output format": {args: []string{"-o", "wide"}, err: `--output "wide" is not supported`},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			o := NewGetOptions(nil)
			fs := pflag.NewFlagSet("get", pflag.ContinueOnError)
			o.AddFlags(fs)
			if err := fs.Parse(tc.args); err != nil {
				t.Fatal(err)
			}
			err := o.Validate()
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want one with %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := GetOptions{Clusters: o.Clusters, AllNamespaces: o.AllNamespaces, Watch: o.Watch}
			if diff := cmp.Diff(tc.want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("options (-want +got):\n%s", diff)
			}
		})
	}
}

func TestGetViews(t *testing.T) {
	c := fakeHub(t, append(readyClusters("c1", "c2", "c3"),
		builder.Work("c1", "web").Condition(workApplied).Obj(), builder.Work("c2", "web").Condition(workApplied).Obj(), builder.Work("c3", "web").Obj(),
		&workv1alpha1.ManifestWorkReplicaSet{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "web"}},
		&workv1alpha1.ManifestWorkReplicaSet{ObjectMeta: metav1.ObjectMeta{Namespace: "team-b", Name: "api"}})...)
	cases := map[string]struct {
		o    GetOptions
		want string
		err  string
	}{
		"two clusters": {o: GetOptions{Clusters: []string{"c1", "c2"}}, want: `CLUSTER WORK RESOURCE APPLIED AVAILABLE DETAIL
c1 web (work) True - 
c2 web (work) True -`},
		"every namespace's sets": {o: GetOptions{AllNamespaces: true}, want: `NAMESPACE SET PLACEMENT GROUPS WORKS APPLIED AVAILABLE DEGRADED DETAIL
team-a web - - 0/0 0 0 0 not looked at by the hub's work addon yet
team-b api - - 0/0 0 0 0 not looked at by the hub's work addon yet`},
		"a set in no namespace":          {o: GetOptions{AllNamespaces: true, Name: "db"}, err: "no ManifestWorkReplicaSet db in any namespace (see corral work get -A)"},
		"a work on none of the clusters": {o: GetOptions{Name: "db", Clusters: []string{"c1", "c2"}}, err: "no ManifestWork db on cluster c1, c2 (see corral work get)"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			o := tc.o
			out, err := runGet(c, &o)
			if tc.err != "" {
				if err == nil || err.Error() != tc.err {
					t.Fatalf("error %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(strings.Fields(tc.want), strings.Fields(out)); diff != "" {
				t.Errorf("table (-want +got):\n%s\n%s", diff, out)
			}
		})
	}
}

// TestGetWatch: -w prints the table, then again after a work changes,
// until the context ends.
func TestGetWatch(t *testing.T) {
	c := fakeHub(t, append(readyClusters("c1"), builder.Work("c1", "web").Obj())...)
	run := func(ctx context.Context, hub hubclient.Hub, out io.Writer) error {
		return (&GetOptions{Out: out, Hub: hub, Name: "web", Clusters: []string{"c1"}, Watch: true}).Run(ctx)
	}
	hubclienttest.ExpectWatch(t, c, run, func(ctx context.Context, i int) error {
		w := &workv1.ManifestWork{}
		if err := c.Get(ctx, client.ObjectKey{Namespace: "c1", Name: "web"}, w); err != nil {
			return err
		}
		applied := workApplied
		applied.Message = fmt.Sprintf("applied, change %d", i)
		w.Status.Conditions = []metav1.Condition{applied}
		return c.Update(ctx, w)
	}, "True")
}
