package steps

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	ctrl "sigs.k8s.io/controller-runtime"
)

func TestRun(t *testing.T) {
	boom := errors.New("boom")
	step := func(name string, res Result, err error) Step[*[]string] {
		return Step[*[]string]{Name: name, Run: func(_ context.Context, ran *[]string) (Result, error) {
			*ran = append(*ran, name)
			return res, err
		}}
	}
	cases := map[string]struct {
		steps    []Step[*[]string]
		wantRan  []string
		wantRes  ctrl.Result
		wantErrs []string
	}{
		"all continue": {
			steps:   []Step[*[]string]{step("a", Continue, nil), step("b", Continue, nil)},
			wantRan: []string{"a", "b"},
		},
		"stop ends the list": {
			steps:   []Step[*[]string]{step("a", StopList, nil), step("b", Continue, nil)},
			wantRan: []string{"a"},
		},
		"an error does not end the list, and names its step": {
			steps:    []Step[*[]string]{step("a", Continue, boom), step("b", Continue, nil)},
			wantRan:  []string{"a", "b"},
			wantErrs: []string{"a: boom"},
		},
		"errors are joined": {
			steps:    []Step[*[]string]{step("a", Continue, boom), step("b", Continue, boom)},
			wantRan:  []string{"a", "b"},
			wantErrs: []string{"a: boom", "b: boom"},
		},
		"a conflict stops the list and looks again soon, without an error": {
			steps: []Step[*[]string]{
				step("a", Continue, apierrors.NewConflict(schema.GroupResource{Resource: "things"}, "x", errors.New("changed"))),
				step("b", Continue, nil),
			},
			wantRan: []string{"a"},
			wantRes: ctrl.Result{RequeueAfter: ConflictRetry},
		},
		"the shortest requeue wins": {
			steps: []Step[*[]string]{
				step("a", Result{RequeueAfter: time.Minute}, nil),
				step("b", Continue, nil),
				step("c", Result{RequeueAfter: time.Second}, nil),
			},
			wantRan: []string{"a", "b", "c"},
			wantRes: ctrl.Result{RequeueAfter: time.Second},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var ran []string
			res, err := Run(context.Background(), &ran, tc.steps...)
			if diff := cmp.Diff(tc.wantRan, ran); diff != "" {
				t.Errorf("steps run (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantRes, res); diff != "" {
				t.Errorf("result (-want +got):\n%s", diff)
			}
			for _, want := range tc.wantErrs {
				if err == nil || !strings.Contains(err.Error(), want) {
					t.Errorf("error %v does not say %q", err, want)
				}
			}
			if len(tc.wantErrs) == 0 && err != nil {
				t.Errorf("unexpected error %v", err)
			}
		})
	}
}

func TestAfterWrite(t *testing.T) {
	boom := errors.New("boom")
	conflict := fmt.Errorf("writing x: %w", apierrors.NewConflict(schema.GroupResource{Resource: "things"}, "x", errors.New("changed")))
	cases := map[string]struct {
		err     error
		wantRes ctrl.Result
		wantErr error
	}{
		"written": {},
		"a conflict, wrapped: looked at again, no error": {err: conflict, wantRes: ctrl.Result{RequeueAfter: ConflictRetry}},
		"any other error is returned":                    {err: boom, wantErr: boom},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			res, err := AfterWrite(context.Background(), tc.err)
			if res != tc.wantRes || !errors.Is(err, tc.wantErr) || (tc.wantErr == nil && err != nil) {
				t.Errorf("AfterWrite = %+v, %v; want %+v, %v", res, err, tc.wantRes, tc.wantErr)
			}
		})
	}
}
