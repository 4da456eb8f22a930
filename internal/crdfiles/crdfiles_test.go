package crdfiles

import (
	"strings"
	"testing"
	"testing/fstest"
)

const crd = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  names: {kind: Widget, plural: widgets}
  scope: Namespaced
`

func TestRead(t *testing.T) {
	fsys := fstest.MapFS{
		"b.crd.yaml": {Data: []byte(strings.Replace(crd, "widgets.example.com", "b.example.com", 1))},
		"a.crd.yaml": {Data: []byte(crd)},
		"notes.txt":  {Data: []byte("not a CRD")},
	}
	got, err := Read(fsys, "*.crd.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Name != "widgets.example.com" || got[1].Name != "b.example.com" {
		t.Fatalf("Read = %d CRDs, want a.crd.yaml's then b.crd.yaml's", len(got))
	}
	fsys["c.crd.yaml"] = &fstest.MapFile{Data: []byte(crd + "unknownField: 1\n")}
	if _, err := Read(fsys, "*.crd.yaml"); err == nil || !strings.HasPrefix(err.Error(), "c.crd.yaml: ") {
		t.Fatalf("Read of a file with an unknown field = %v, want an error naming c.crd.yaml", err)
	}
}
