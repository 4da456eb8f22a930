package output

import (
	"bytes"
	"io"
	"strings"
	"testing"
)

func TestPrint(t *testing.T) {
	obj := map[string]string{"name": "c1"}
	table := func(w io.Writer) { _, _ = io.WriteString(w, "NAME\nc1\n") }
	cases := map[string]struct {
		format  string
		want    string
		wantErr string
	}{
		"table by default": {want: "NAME\nc1\n"},
		"json":             {format: "json", want: "{\n  \"name\": \"c1\"\n}\n"},
		"yaml":             {format: "yaml", want: "name: c1\n"},
		"anything else":    {format: "xml", wantErr: `--output "xml" is not supported`},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var out bytes.Buffer
			err := Print(&out, tc.format, obj, table)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("Print() = %v, want an error about %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if out.String() != tc.want {
				t.Errorf("Print() wrote %q, want %q", out.String(), tc.want)
			}
		})
	}
}
