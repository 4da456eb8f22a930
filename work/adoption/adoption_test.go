package adoption

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParse(t *testing.T) {
	p, err := Parse(Policy{TakeOver: TakeOverIfNoDiff, Drift: DriftIfNotDrifted, Mode: ModeReportDiff}.String())
	if err != nil || p != (Policy{TakeOver: TakeOverIfNoDiff, Drift: DriftIfNotDrifted, Mode: ModeReportDiff}) {
		t.Errorf("round trip: %+v, %v", p, err)
	}
	for in, want := range map[string]string{
		`{"takeOver":"Sometimes"}`: `takeOver "Sometimes", want Always, IfNoDiff or Never`,
		`{"drift":"Never"}`:        `drift "Never", want Always or IfNotDrifted`,
		`{"mode":"Dry"}`:           `mode "Dry", want Apply or ReportDiff`,
		`takeOver=Always`:          "is not a policy",
	} {
		if _, err := Parse(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Parse(%s): %v, want an error saying %q", in, err, want)
		}
	}
	if p, err := Parse(`{}`); err != nil || p != (Policy{}) {
		t.Errorf("Parse({}) = %+v, %v: want the defaults", p, err)
	}
}

func TestMessageCarriesTheFields(t *testing.T) {
	var fields []Field
	for i := range MaxFields + 3 {
		fields = append(fields, Field{Path: fmt.Sprintf(".data.k%d", i), Hub: json.RawMessage(`"a; fields: b"`), Cluster: json.RawMessage(`null`)})
	}
	msg := Message("it differs", fields)
	if !strings.HasPrefix(msg, "it differs (23 fields differ, 3 not shown)") {
		t.Errorf("message %q", msg)
	}
	if diff := cmp.Diff(fields[:MaxFields], Fields(msg)); diff != "" {
		t.Errorf("fields read back (-want +got):\n%s", diff)
	}
	if got := Message("in sync", nil); got != "in sync" || Fields(got) != nil {
		t.Errorf("no fields: %q, %v", got, Fields(got))
	}
}
