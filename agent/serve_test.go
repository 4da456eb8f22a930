package agent

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
)

func TestServePprofServesProfilesUntilCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	addr, err := servePprof(ctx, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	client := &http.Client{Timeout: 30 * time.Second}
	resp, err := client.Get(fmt.Sprintf("http://%s/debug/pprof/cmdline", addr)) //nolint:noctx // a loopback test
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusOK || len(body) == 0 {
		t.Fatalf("/debug/pprof/cmdline: %d %q, want 200 and the command line", resp.StatusCode, body)
	}
	cancel()
	err = wait.PollUntilContextTimeout(t.Context(), 10*time.Millisecond, 30*time.Second, true, func(context.Context) (bool, error) {
		c, dialErr := net.Dial("tcp", addr)
		if c != nil {
			_ = c.Close()
		}
		return dialErr != nil, nil // refused: closed
	})
	if err != nil {
		t.Fatalf("%s still accepts connections after the context ended", addr)
	}
}

func TestServePprofRefusesABusyAddress(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	_, err = servePprof(t.Context(), l.Addr().String())
	if err == nil || !strings.HasPrefix(err.Error(), "--pprof-bind-address: ") {
		t.Fatalf("serving on a busy address: %v, want an error naming --pprof-bind-address", err)
	}
}

func TestServePprofOffServesNothing(t *testing.T) {
	for _, flag := range []string{"", "0"} {
		if addr, err := servePprof(t.Context(), flag); addr != "" || err != nil {
			t.Errorf("servePprof(%q) = %q, %v; want nothing served and no error", flag, addr, err)
		}
	}
}

func TestServeProbesAnswersOK(t *testing.T) {
	addr, err := serveProbes(t.Context(), "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	client := &http.Client{Timeout: 30 * time.Second}
	for _, path := range []string{"/healthz", "/readyz"} {
		resp, err := client.Get(fmt.Sprintf("http://%s%s", addr, path)) //nolint:noctx // a loopback test
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		if resp.StatusCode != http.StatusOK || string(body) != "ok" {
			t.Errorf("%s: %d %q, want 200 ok", path, resp.StatusCode, body)
		}
	}
	if _, err := serveProbes(t.Context(), addr); err == nil || !strings.HasPrefix(err.Error(), "--health-probe-bind-address: ") {
		t.Errorf("serving probes on a busy address: %v, want an error naming --health-probe-bind-address", err)
	}
}
