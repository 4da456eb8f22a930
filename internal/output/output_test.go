package output

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
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

// TestObjects: one object asked for by name prints as itself, several as a
// v1 List; each with its apiVersion and kind, and no managedFields.
func TestObjects(t *testing.T) {
	items := func() []corev1.ConfigMap {
		return []corev1.ConfigMap{
			{ObjectMeta: metav1.ObjectMeta{Name: "a", ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "kubectl"}}}},
			{ObjectMeta: metav1.ObjectMeta{Name: "b"}},
		}
	}
	var one bytes.Buffer
	if err := Objects(&one, "yaml", "v1", "ConfigMap", items()[:1], true); err != nil {
		t.Fatal(err)
	}
	if want := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n"; one.String() != want {
		t.Errorf("one by name:\n%s\nwant:\n%s", one.String(), want)
	}
	var several bytes.Buffer
	if err := Objects(&several, "json", "v1", "ConfigMap", items(), false); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Kind  string
		Items []map[string]any
	}
	if err := json.Unmarshal(several.Bytes(), &got); err != nil || got.Kind != "List" || len(got.Items) != 2 || got.Items[1]["kind"] != "ConfigMap" {
		t.Errorf("several: %v %s", err, several.String())
	}
	if strings.Contains(several.String(), "managedFields") {
		t.Errorf("managedFields printed: %s", several.String())
	}
}
