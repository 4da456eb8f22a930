package admissionreview

import (
	"net/http"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestDecode(t *testing.T) {
	cases := map[string]struct {
		raw     string
		wantErr string
	}{
		"an object": {raw: `{"name":"a"}`},
		"no object": {wantErr: "the request has no object"},
		"not JSON":  {raw: `{`, wantErr: "unexpected end of JSON input"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var got struct{ Name string }
			err := Decode([]byte(tc.raw), &got)
			switch {
			case tc.wantErr == "" && (err != nil || got.Name != "a"):
				t.Errorf("Decode = %+v, %v; want name a", got, err)
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Errorf("Decode error %v, want one saying %q", err, tc.wantErr)
			}
		})
	}
}

func TestInvalid(t *testing.T) {
	resp := Invalid("cluster %q: %s", "c1", "bad name")
	if resp.Allowed || resp.Result.Code != http.StatusBadRequest || resp.Result.Reason != metav1.StatusReasonBadRequest || resp.Result.Message != `cluster "c1": bad name` {
		t.Errorf("Invalid = %+v", resp.Result)
	}
}
