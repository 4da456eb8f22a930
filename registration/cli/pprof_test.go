package cli

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestServePprofServesProfilesUntilCancelled(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	_ = l.Close()
	ctx, cancel := context.WithCancel(t.Context())
	if err := servePprof(ctx, addr); err != nil {
		t.Fatal(err)
	}
	resp, err := http.Get(fmt.Sprintf("http://%s/debug/pprof/cmdline", addr)) //nolint:noctx // a loopback test
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusOK || len(body) == 0 {
		t.Fatalf("/debug/pprof/cmdline: %d %q, want 200 and the command line", resp.StatusCode, body)
	}
	cancel()
	deadline := time.Now().Add(30 * time.Second)
	for {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			return // closed
		}
		_ = c.Close()
		if time.Now().After(deadline) {
			t.Fatalf("%s still accepts connections after the context ended", addr)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestServePprofRefusesABusyAddress(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	err = servePprof(t.Context(), l.Addr().String())
	if err == nil || !strings.HasPrefix(err.Error(), "--pprof-bind-address: ") {
		t.Fatalf("serving on a busy address: %v, want an error naming --pprof-bind-address", err)
	}
}

func TestServePprofOffServesNothing(t *testing.T) {
	for _, addr := range []string{"", "0"} {
		if err := servePprof(t.Context(), addr); err != nil {
			t.Errorf("servePprof(%q): %v, want nothing served and no error", addr, err)
		}
	}
}
