package scheduler

import (
	"slices"
	"testing"
)

func TestNewNamesSortsDropsEmptyAndRepeats(t *testing.T) {
	got := NewNames("c", "", "a", "c", "b")
	if want := (Names{"a", "b", "c"}); !slices.Equal(got, want) {
		t.Fatalf("NewNames = %v, want %v", got, want)
	}
	for _, n := range []string{"a", "b", "c"} {
		if !got.Has(n) {
			t.Errorf("Has(%q) = false, want true", n)
		}
	}
	for _, n := range []string{"", "aa", "d"} {
		if got.Has(n) {
			t.Errorf("Has(%q) = true, want false", n)
		}
	}
	var empty Names
	if empty.Has("a") || len(empty) != 0 {
		t.Error("the empty set holds something")
	}
}
