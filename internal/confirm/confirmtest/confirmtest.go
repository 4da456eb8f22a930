// Package confirmtest checks, in a verb's unit test, what a verb that
// shows its effect returned and printed.
package confirmtest

import (
	"strings"
	"testing"
)

// Expect fails t unless err is nil when wantErr is "", or else one line
// containing wantErr; and unless out holds each of shown and none of
// hidden.
func Expect(t testing.TB, err error, out, wantErr string, shown, hidden []string) {
	t.Helper()
	switch {
	case wantErr == "" && err != nil:
		t.Fatalf("unexpected error: %v", err)
	case wantErr != "" && (err == nil || !strings.Contains(err.Error(), wantErr) || strings.Contains(err.Error(), "\n")):
		t.Fatalf("error = %v, want one line saying %q", err, wantErr)
	}
	for _, s := range shown {
		if !strings.Contains(out, s) {
			t.Errorf("output lacks %q:\n%s", s, out)
		}
	}
	for _, s := range hidden {
		if strings.Contains(out, s) {
			t.Errorf("output has %q:\n%s", s, out)
		}
	}
}
