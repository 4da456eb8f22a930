package fleet

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCheckRealNodesSaysWhatIsMissing(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("the checks after the root check need root")
	}
	path := os.Getenv("PATH")
	cases := map[string]struct {
		path    string
		binDir  func(t *testing.T) string
		wantErr []string
	}{
		"no containerd, runc or the rest on PATH": {
			path:    t.TempDir(),
			binDir:  func(t *testing.T) string { return t.TempDir() },
			wantErr: []string{"containerd", "apt-get install", "--real-nodes=false"},
		},
		"the images' programs not built": {
			path:    path,
			binDir:  func(t *testing.T) string { return t.TempDir() },
			wantErr: []string{"pause", "make images", "--real-nodes=false"},
		},
		"no kubelet in the bin dir": {
			path: path,
			binDir: func(t *testing.T) string {
				dir := t.TempDir()
				for _, b := range []string{"pause", "sample-app"} {
					if err := os.WriteFile(filepath.Join(dir, b), nil, 0o755); err != nil {
						t.Fatal(err)
					}
				}
				return dir
			},
			wantErr: []string{"kubelet", "make tools"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if tc.path == path && len(missingPrograms()) > 0 {
				t.Skipf("this machine lacks %v", missingPrograms())
			}
			t.Setenv("PATH", tc.path)
			err := CheckRealNodes(tc.binDir(t))
			if err == nil {
				t.Fatal("CheckRealNodes() = nil, want an error")
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("the error is more than one line: %q", err)
			}
			for _, w := range tc.wantErr {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("CheckRealNodes() = %q, want it to contain %q", err, w)
				}
			}
		})
	}
}
