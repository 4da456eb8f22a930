package measure

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

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

// PprofAddr is $CORRAL_BENCH_PPROF, the host:port where a benchmark asks
// the process it measures to serve /debug/pprof; "" when unset.
func PprofAddr() string { return os.Getenv("CORRAL_BENCH_PPROF") }

// ProfileProcess writes a CPU profile of the process serving /debug/pprof
// at addr, over the next d, to $CORRAL_BENCH_PROFILE_DIR/name.pprof when
// both are set. The process may still be starting: it is asked for a
// second. The returned func waits for the profile and logs where it is.
func ProfileProcess(tb testing.TB, addr, name string, d time.Duration) func() {
	dir := os.Getenv("CORRAL_BENCH_PROFILE_DIR")
	if addr == "" || dir == "" {
		return func() {}
	}
	done := make(chan string, 1)
	go func() {
		url := fmt.Sprintf("http://%s/debug/pprof/profile?seconds=%d", addr, int(d.Seconds()))
		resp, err := http.Get(url) //nolint:noctx // a loopback profile
		for tries := 0; err != nil && tries < 50; tries++ {
			time.Sleep(20 * time.Millisecond)
			resp, err = http.Get(url) //nolint:noctx // a loopback profile
		}
		if err != nil {
			done <- fmt.Sprintf("profiling %s: %v", addr, err)
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
