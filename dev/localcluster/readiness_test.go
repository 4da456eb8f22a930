package localcluster

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

func TestWaitFor(t *testing.T) {
	notReady := func(context.Context) error { return errors.New("connection refused") }
	cases := map[string]struct {
		// proc starts the process waited on; nil waits on none.
		proc func(t *testing.T) *process
		// readyAfter is the number of checks that fail before one succeeds;
		// negative means none succeeds.
		readyAfter int
		// ctx returns the context to wait with.
		ctx func(t *testing.T) context.Context
		// wantErr returns substrings of the expected error; nil means nil.
		wantErr func(p *process) []string
		// wantChecks is how many checks must have run; 0 skips the test.
		wantChecks int
	}{
		"ready at once": {
			readyAfter: 0,
			ctx:        timeoutCtx(waitLimit),
			wantChecks: 1,
		},
		"ready after retries": {
			proc:       func(t *testing.T) *process { p, _ := startTestProcess(t, "etcd", sleepBinary(t), "60"); return p },
			readyAfter: 2,
			ctx:        timeoutCtx(waitLimit),
			wantChecks: 3,
		},
		"process exits first": {
			proc: func(t *testing.T) *process {
				p, exited := startTestProcess(t, "kube-apiserver", "/bin/sh", "-c", "exit 3")
				awaitExit(t, exited)
				return p
			},
			readyAfter: -1,
			ctx:        timeoutCtx(waitLimit),
			wantErr: func(p *process) []string {
				return []string{p.exitError().Error(), "exited with code 3", p.logPath}
			},
		},
		"context ends first": {
			proc: func(t *testing.T) *process {
				p, _ := startTestProcess(t, "kube-apiserver", sleepBinary(t), "60")
				return p
			},
			readyAfter: -1,
			ctx:        timeoutCtx(0),
			wantErr: func(*process) []string {
				return []string{"kube-apiserver was not ready in time", "connection refused"}
			},
			wantChecks: 1,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var p *process
			if tc.proc != nil {
				p = tc.proc(t)
			}
			checks := 0
			check := func(ctx context.Context) error {
				checks++
				if tc.readyAfter >= 0 && checks > tc.readyAfter {
					return nil
				}
				return notReady(ctx)
			}
			err := waitFor(tc.ctx(t), "kube-apiserver", p, check)
			if tc.wantErr == nil {
				if err != nil {
					t.Fatalf("waitFor() = %v, want nil", err)
				}
			} else {
				if err == nil {
					t.Fatal("waitFor() = nil, want an error")
				}
				for _, want := range tc.wantErr(p) {
					if !strings.Contains(err.Error(), want) {
						t.Errorf("waitFor() = %q, want it to contain %q", err, want)
					}
				}
			}
			if tc.wantChecks > 0 && checks != tc.wantChecks {
				t.Errorf("check ran %d times, want %d", checks, tc.wantChecks)
			}
		})
	}
}

// timeoutCtx returns a context that ends after d; 0 means already ended.
func timeoutCtx(d time.Duration) func(t *testing.T) context.Context {
	return func(t *testing.T) context.Context {
		ctx, cancel := context.WithTimeout(context.Background(), d)
		t.Cleanup(cancel)
		return ctx
	}
}
