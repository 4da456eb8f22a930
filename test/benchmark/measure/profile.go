package measure

import (
	"context"
	"fmt"
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
