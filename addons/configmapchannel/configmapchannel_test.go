package configmapchannel

import (
	"context"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
)

type sample struct {
	N int    `json:"n"`
	S string `json:"s,omitempty"`
}

func TestWriteRead(t *testing.T) {
	kube := fake.NewClientset()
	ctx := context.Background()
	var got sample
	if found, err := Read(ctx, kube, "c1", "r", &got); found || err != nil {
		t.Fatalf("Read before any write = %t, %v; want not found", found, err)
	}
	for _, v := range []sample{{N: 1}, {N: 1}, {N: 2}} {
		if err := Write(ctx, kube, "c1", "r", "test", v); err != nil {
			t.Fatal(err)
		}
	}
	writes := 0
	for _, a := range kube.Actions() {
		if a.GetVerb() == "create" || a.GetVerb() == "update" {
			writes++
		}
	}
	if writes != 2 {
		t.Errorf("%d writes for 2 distinct values, want 2 (an unchanged one is not written)", writes)
	}
	if found, err := Read(ctx, kube, "c1", "r", &got); !found || err != nil || got.N != 2 {
		t.Errorf("Read = %+v, %t, %v", got, found, err)
	}
	cm, err := kube.CoreV1().ConfigMaps("c1").Get(ctx, "r", metav1.GetOptions{})
	if err != nil || cm.Labels[LabelReport] != "test" {
		t.Errorf("the ConfigMap is not labelled as the addon's report: %v %v", cm.Labels, err)
	}
}

func TestTooLarge(t *testing.T) {
	if _, err := Encode(sample{S: strings.Repeat("x", MaxSize)}); err == nil || !strings.Contains(err.Error(), "more than") {
		t.Errorf("Encode of an oversized report = %v, want an error saying it is too large", err)
	}
}
