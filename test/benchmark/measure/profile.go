package measure

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
)

// ProfileAPIServer writes a CPU profile of the API server kube talks to,
// over the next d, to $CORRAL_BENCH_PROFILE_DIR/name.pprof when that is
// set: where a write's time goes on the server, which no client profile
// shows. The returned func waits for the profile and logs where it is.
func ProfileAPIServer(ctx context.Context, tb testing.TB, kube kubernetes.Interface, name string, d time.Duration) func() {
	dir := os.Getenv("CORRAL_BENCH_PROFILE_DIR")
	if dir == "" {
		return func() {}
	}
	done := make(chan string, 1)
	go func() {
		path := filepath.Join(dir, name+".pprof")
		data, err := kube.CoreV1().RESTClient().Get().AbsPath("/debug/pprof/profile").
			Param("seconds", strconv.Itoa(int(d.Seconds()))).Timeout(d + time.Minute).Do(ctx).Raw()
		if err == nil {
			err = os.WriteFile(path, data, 0o600)
		}
		done <- fmt.Sprintf("API server CPU profile: %s (%v)", path, err)
	}()
	return func() { tb.Log(<-done) }
}

// pprofFlag is corral's flag that serves /debug/pprof.
const pprofFlag = "--pprof-bind-address"

// PprofFlags are the flags that make the corral process a benchmark
// measures serve /debug/pprof at $CORRAL_BENCH_PPROF (host:port); none
// when that is unset.
func PprofFlags() []string {
	if addr := os.Getenv("CORRAL_BENCH_PPROF"); addr != "" {
		return []string{pprofFlag, addr}
	}
	return nil
}

// ProfileProcess writes a CPU profile of the process run with args, over
// the next d, to $CORRAL_BENCH_PROFILE_DIR/name.pprof when both variables
// are set and args hold PprofFlags (upstream OCM's processes serve no
// pprof: they are left alone). The process may still be starting: it is
// asked for up to a second. The returned func waits for the profile and
// logs where it is.
func ProfileProcess(tb testing.TB, args []string, name string, d time.Duration) func() {
	addr, dir := os.Getenv("CORRAL_BENCH_PPROF"), os.Getenv("CORRAL_BENCH_PROFILE_DIR")
	if addr == "" || dir == "" || !slices.Contains(args, pprofFlag) {
		return func() {}
	}
	done := make(chan string, 1)
	go func() {
		url := fmt.Sprintf("http://%s/debug/pprof/profile?seconds=%d", addr, int(d.Seconds()))
		var resp *http.Response
		err := wait.PollUntilContextTimeout(context.Background(), 20*time.Millisecond, time.Second, true, func(context.Context) (bool, error) {
			var getErr error
			resp, getErr = http.Get(url) //nolint:noctx,bodyclose // a loopback profile; closed below
			return getErr == nil, nil
		})
		if err != nil {
			done <- fmt.Sprintf("profiling %s: no answer within a second", addr)
			return
		}
		defer resp.Body.Close()
		path := filepath.Join(dir, name+".pprof")
		out, err := os.Create(path)
		if err == nil {
			_, err = io.Copy(out, resp.Body)
			_ = out.Close()
		}
		done <- fmt.Sprintf("CPU profile: %s (%v)", path, err)
	}()
	return func() { tb.Log(<-done) }
}
