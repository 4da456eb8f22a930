package aggregate

import (
	"fmt"
	"strconv"

	workv1 "open-cluster-management.io/api/work/v1"
)

// Member is one cluster's fed-back values for one propagated object. The
// zero Member is a cluster that has not fed anything back yet: it counts
// for nothing and holds the template's observedGeneration back.
type Member struct {
	// Values are the fed-back values by name: int64, string or bool.
	Values map[string]any
	// Outdated: the object on the cluster is of an older revision than
	// the one delivered. Its counters count; its rollout is not done.
	Outdated bool
}

// NewMember reads a cluster's feedback for one object. delivered is the
// revision the cluster should run: a member whose revision label is
// another, or missing, is Outdated; 0 skips the check. A value of a type
// its name does not have (a string replica count) is an error, as is a
// raw JSON value, which no rule of FeedbackRules asks for.
func NewMember(fb workv1.StatusFeedbackResult, delivered int64) (Member, error) {
	m := Member{Values: make(map[string]any, len(fb.Values))}
	for _, v := range fb.Values {
		val, err := fieldValue(v.Value)
		if err != nil {
			return Member{}, fmt.Errorf("feedback %s: %w", v.Name, err)
		}
		m.Values[v.Name] = val
	}
	for name, want := range valueTypes {
		if v, ok := m.Values[name]; ok && !want(v) {
			return Member{}, fmt.Errorf("feedback %s: %T is not the type of the field", name, v)
		}
	}
	if delivered != 0 {
		rev, ok := m.Values[FeedbackRevision].(string)
		n, err := strconv.ParseInt(rev, 10, 64)
		m.Outdated = !ok || err != nil || n != delivered
	}
	return m, nil
}

func fieldValue(v workv1.FieldValue) (any, error) {
	switch {
	case v.Type == workv1.Integer && v.Integer != nil:
		return *v.Integer, nil
	case v.Type == workv1.String && v.String != nil:
		return *v.String, nil
	case v.Type == workv1.Boolean && v.Boolean != nil:
		return *v.Boolean, nil
	}
	return nil, fmt.Errorf("a %s value is not read (integers, strings and booleans are)", v.Type)
}

func isInt(v any) bool    { _, ok := v.(int64); return ok }
func isString(v any) bool { _, ok := v.(string); return ok }

// valueTypes are the types of the values whose names are not counters;
// counters are integers (checked by count).
var valueTypes = map[string]func(any) bool{
	FeedbackGeneration:         isInt,
	FeedbackObservedGeneration: isInt,
	FeedbackRevision:           isString,
	FeedbackProgressingReason:  isString,
	FeedbackCurrentRevision:    isString,
	FeedbackUpdateRevision:     isString,
	FeedbackComplete:           isString,
	FeedbackFailed:             isString,
	FeedbackFailedReason:       isString,
	FeedbackStartTime:          isString,
	FeedbackCompletionTime:     isString,
}

// fed says whether the cluster fed anything back.
func (m Member) fed() bool { return len(m.Values) > 0 }

// count is the integer value name, 0 when not fed back (status counters
// are omitted when 0).
func (m Member) count(name string) (int64, error) {
	v, ok := m.Values[name]
	if !ok {
		return 0, nil
	}
	n, ok := v.(int64)
	if !ok {
		return 0, fmt.Errorf("feedback %s is a %T, not an integer", name, v)
	}
	return n, nil
}

// str is the string value name, "" when not fed back.
func (m Member) str(name string) string {
	s, _ := m.Values[name].(string)
	return s
}

// observed says whether the member is of the delivered revision and its
// controller observed its object's current generation. A kind without
// observedGeneration (Job) observes as soon as it fed its generation
// back.
func (m Member) observed(generation bool) bool {
	if !m.fed() || m.Outdated {
		return false
	}
	gen, ok := m.Values[FeedbackGeneration].(int64)
	if !ok {
		return false
	}
	if !generation {
		return true
	}
	obs, ok := m.Values[FeedbackObservedGeneration].(int64)
	return ok && obs >= gen
}
