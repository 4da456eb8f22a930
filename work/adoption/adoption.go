// Package adoption is the contract between the hub and corral's work
// agent on objects a cluster already has, or changes: a ManifestWork's
// Annotation carries a Policy (what the agent may take over, whether it
// puts a change made on the cluster back, whether it only reports), and
// the agent reports on each manifest, in its ConditionType condition,
// what differs from the manifest, field by field (Message, Fields).
//
// OCM's work agent ignores both: it takes every object over and puts
// every change back, as a work without the annotation has corral's agent
// do. The propagation addon writes the annotation (its spec.adoption) and
// reads the condition into each cluster's status.
package adoption

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Annotation, on a ManifestWork, is its Policy as JSON.
const Annotation = "apps.corral.dev/adoption"

// TakeOver says what becomes of an object the cluster has that no work
// made.
type TakeOver string

const (
	// TakeOverAlways takes it over: the manifest is applied over it.
	TakeOverAlways TakeOver = "Always"
	// TakeOverIfNoDiff takes it over only when it already is as the
	// manifest says; otherwise it is left as it is, and what differs is
	// reported.
	TakeOverIfNoDiff TakeOver = "IfNoDiff"
	// TakeOverNever leaves it as it is, and reports what differs.
	TakeOverNever TakeOver = "Never"
)

// Drift says what becomes of an object a work made when someone changes
// it on the cluster.
type Drift string

const (
	// DriftAlways puts the change back, and reports it.
	DriftAlways Drift = "Always"
	// DriftIfNotDrifted leaves the changed object as it is, and reports
	// the change; a new manifest from the hub is applied over it.
	DriftIfNotDrifted Drift = "IfNotDrifted"
)

// Mode says whether anything is applied.
type Mode string

const (
	// ModeApply applies the manifests (as TakeOver and Drift say).
	ModeApply Mode = "Apply"
	// ModeReportDiff changes nothing on the cluster and reports what
	// applying would change. The hub gives such a work's manifests the
	// ReadOnly update strategy, so that an agent that ignores the
	// annotation changes nothing either.
	ModeReportDiff Mode = "ReportDiff"
)

// Policy is what a work's annotation says. Empty fields are the
// defaults: Always, Always, Apply, what an agent does without the
// annotation.
type Policy struct {
	TakeOver TakeOver `json:"takeOver,omitempty"`
	Drift    Drift    `json:"drift,omitempty"`
	Mode     Mode     `json:"mode,omitempty"`
}

// Parse reads an Annotation's value; an unknown value of a field is an
// error naming it.
func Parse(s string) (Policy, error) {
	var p Policy
	if err := json.Unmarshal([]byte(s), &p); err != nil {
		return p, fmt.Errorf("annotation %s is not a policy: %w", Annotation, err)
	}
	switch p.TakeOver {
	case "", TakeOverAlways, TakeOverIfNoDiff, TakeOverNever:
	default:
		return p, fmt.Errorf("annotation %s: takeOver %q, want Always, IfNoDiff or Never", Annotation, p.TakeOver)
	}
	switch p.Drift {
	case "", DriftAlways, DriftIfNotDrifted:
	default:
		return p, fmt.Errorf("annotation %s: drift %q, want Always or IfNotDrifted", Annotation, p.Drift)
	}
	switch p.Mode {
	case "", ModeApply, ModeReportDiff:
	default:
		return p, fmt.Errorf("annotation %s: mode %q, want Apply or ReportDiff", Annotation, p.Mode)
	}
	return p, nil
}

// String is p as the Annotation's value.
func (p Policy) String() string {
	b, _ := json.Marshal(p) // strings only: cannot fail
	return string(b)
}

// ConditionType is the manifest condition in which corral's agent
// reports what differs: True while the object differs from the manifest
// and is left so (NotAdopted, Drifted, WouldChange, WouldCreate), its
// lastTransitionTime when that was first seen; False when it does not
// differ (InSync) or a change was put back (PutBack, with what was put
// back).
const ConditionType = "Drifted"

// WorkConditionType is the work condition by which corral's agent says
// it follows the work's policy (True, reason Followed): a work the agent
// reported on without it went to an agent that ignores the annotation.
const WorkConditionType = "AdoptionFollowed"

// ReasonFollowed is WorkConditionType's reason.
const ReasonFollowed = "Followed"

// Reasons of ConditionType.
const (
	ReasonInSync      = "InSync"
	ReasonNotAdopted  = "NotAdopted"
	ReasonDrifted     = "Drifted"
	ReasonPutBack     = "PutBack"
	ReasonWouldChange = "WouldChange"
	ReasonWouldCreate = "WouldCreate"
)

// Field is one field that differs: its path (.spec.replicas,
// .spec.template.spec.containers[0].image), and its value in the
// manifest (Hub) and on the cluster (Cluster), as JSON; null when it has
// none.
type Field struct {
	Path    string          `json:"path"`
	Hub     json.RawMessage `json:"hub"`
	Cluster json.RawMessage `json:"cluster"`
}

// MaxFields is how many fields a message carries; the count says how
// many more differ.
const MaxFields = 20

// fieldsMarker separates a message's sentence from its fields.
const fieldsMarker = "; fields: "

// Message is the condition's message: the sentence, how many fields
// differ, and the first MaxFields of them as JSON, which Fields reads
// back.
func Message(sentence string, fields []Field) string {
	if len(fields) == 0 {
		return sentence
	}
	shown := fields[:min(len(fields), MaxFields)]
	b, _ := json.Marshal(shown) // raw JSON values: cannot fail
	more := ""
	if len(fields) > len(shown) {
		more = fmt.Sprintf(", %d not shown", len(fields)-len(shown))
	}
	return fmt.Sprintf("%s (%d fields differ%s)%s%s", sentence, len(fields), more, fieldsMarker, b)
}

// Fields reads back the fields of a Message; none when it has none.
func Fields(message string) []Field {
	_, raw, ok := strings.Cut(message, fieldsMarker)
	if !ok {
		return nil
	}
	var out []Field
	if json.Unmarshal([]byte(raw), &out) != nil {
		return nil
	}
	return out
}
