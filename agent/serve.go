package agent

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/pprof"
	"time"

	"k8s.io/klog/v2"
)

// servePprof serves /debug/pprof on addr until ctx ends and returns the
// address it listens on; "" or "0" serves nothing.
func servePprof(ctx context.Context, addr string) (string, error) {
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	return serve(ctx, "--pprof-bind-address", addr, mux)
}

// serveProbes serves /healthz and /readyz on addr until ctx ends, for the
// kubelet's probes: the process answers, so it is alive and ready (a
// replica waiting for the lead is ready to take it). "" or "0" serves
// nothing.
func serveProbes(ctx context.Context, addr string) (string, error) {
	mux := http.NewServeMux()
	ok := func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("ok")) }
	mux.HandleFunc("/healthz", ok)
	mux.HandleFunc("/readyz", ok)
	return serve(ctx, "--health-probe-bind-address", addr, mux)
}

// serve serves mux on addr (the value of flag) until ctx ends and returns
// the address it listens on; "" or "0" serves nothing. It returns once it
// listens, so that a port in use is an error of the command, not a log
// line.
func serve(ctx context.Context, flag, addr string, mux *http.ServeMux) (string, error) {
	if addr == "" || addr == "0" {
		return "", nil
	}
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return "", fmt.Errorf("%s: %w", flag, err)
	}
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		<-ctx.Done()
		_ = srv.Close()
	}()
	log := klog.FromContext(ctx).WithValues("flag", flag, "address", l.Addr().String())
	go func() {
		if err := srv.Serve(l); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error(err, "Serving stopped")
		}
	}()
	log.V(1).Info("Serving")
	return l.Addr().String(), nil
}
