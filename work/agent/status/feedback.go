package status

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/util/jsonpath"
	workv1 "open-cluster-management.io/api/work/v1"
)

// MaxRawSize is the largest raw JSON feedback value, in bytes.
const MaxRawSize = 1024

// Reasons of the StatusFeedbackSynced condition.
const (
	ConditionStatusFeedbackSynced = "StatusFeedbackSynced"
	ReasonFeedbackSynced          = "StatusFeedbackSynced"
	ReasonFeedbackNotSynced       = "StatusFeedbackNotSynced"
)

// wellKnown are the WellKnownStatus paths by kind.
var wellKnown = map[schema.GroupKind][]workv1.JsonPath{
	{Group: "apps", Kind: "Deployment"}: {
		{Name: "ReadyReplicas", Path: ".status.readyReplicas"},
		{Name: "Replicas", Path: ".status.replicas"},
		{Name: "AvailableReplicas", Path: ".status.availableReplicas"},
	},
	{Group: "apps", Kind: "StatefulSet"}: {
		{Name: "ReadyReplicas", Path: ".status.readyReplicas"},
		{Name: "Replicas", Path: ".status.replicas"},
		{Name: "AvailableReplicas", Path: ".status.availableReplicas"},
	},
	{Group: "apps", Kind: "DaemonSet"}: {
		{Name: "NumberReady", Path: ".status.numberReady"},
		{Name: "DesiredNumberScheduled", Path: ".status.desiredNumberScheduled"},
		{Name: "NumberAvailable", Path: ".status.numberAvailable"},
	},
	{Group: "batch", Kind: "Job"}: {
		{Name: "JobComplete", Path: `.status.conditions[?(@.type=="Complete")].status`},
		{Name: "JobSucceeded", Path: ".status.succeeded"},
	},
	{Kind: "Pod"}: {
		{Name: "PodPhase", Path: ".status.phase"},
		{Name: "PodReady", Path: `.status.conditions[?(@.type=="Ready")].status`},
	},
}

// Read reads the values rules ask for from obj. Values that are not set
// yet are left out; errs says which rules could not be read and why.
func Read(obj *unstructured.Unstructured, rules []workv1.FeedbackRule, raw bool) (workv1.StatusFeedbackResult, error) {
	var result workv1.StatusFeedbackResult
	var errs []error
	for _, rule := range rules {
		var paths []workv1.JsonPath
		switch rule.Type {
		case workv1.WellKnownStatusType:
			paths = wellKnown[obj.GroupVersionKind().GroupKind()]
			if paths == nil {
				errs = append(errs, fmt.Errorf("WellKnownStatus has no fields for kind %s: use JSONPaths", obj.GetKind()))
			}
		case workv1.JSONPathsType:
			paths = rule.JsonPaths
		default:
			errs = append(errs, fmt.Errorf("unknown feedback rule type %q: use WellKnownStatus or JSONPaths", rule.Type))
		}
		for _, p := range paths {
			if p.Version != "" && p.Version != obj.GroupVersionKind().Version {
				continue
			}
			v, err := value(obj, p, raw)
			if err != nil {
				errs = append(errs, fmt.Errorf("feedback %s (%s): %w", p.Name, p.Path, err))
				continue
			}
			if v == nil {
				continue
			}
			// Names are the status list's keys: a later rule's value of
			// a name replaces an earlier one's (a JSONPath named as a
			// WellKnownStatus field, say).
			fv := workv1.FeedbackValue{Name: p.Name, Value: *v}
			if i := slices.IndexFunc(result.Values, func(x workv1.FeedbackValue) bool { return x.Name == p.Name }); i >= 0 {
				result.Values[i] = fv
			} else {
				result.Values = append(result.Values, fv)
			}
		}
	}
	return result, errors.Join(errs...)
}

func value(obj *unstructured.Unstructured, p workv1.JsonPath, raw bool) (*workv1.FieldValue, error) {
	jp := jsonpath.New(p.Name).AllowMissingKeys(true)
	if err := jp.Parse(fmt.Sprintf("{%s}", p.Path)); err != nil {
		return nil, fmt.Errorf("not a JSONPath: %w", err)
	}
	found, err := jp.FindResults(obj.Object)
	if err != nil {
		return nil, err
	}
	if len(found) == 0 || len(found[0]) == 0 {
		return nil, nil
	}
	if len(found) > 1 || len(found[0]) > 1 {
		return nil, fmt.Errorf("the path matches more than one value: make it match one")
	}
	v := found[0][0].Interface()
	switch t := v.(type) {
	case int64:
		return &workv1.FieldValue{Type: workv1.Integer, Integer: &t}, nil
	case int:
		i := int64(t)
		return &workv1.FieldValue{Type: workv1.Integer, Integer: &i}, nil
	case float64:
		i := int64(t)
		if float64(i) == t {
			return &workv1.FieldValue{Type: workv1.Integer, Integer: &i}, nil
		}
		s := fmt.Sprint(t)
		return &workv1.FieldValue{Type: workv1.String, String: &s}, nil
	case string:
		return &workv1.FieldValue{Type: workv1.String, String: &t}, nil
	case bool:
		return &workv1.FieldValue{Type: workv1.Boolean, Boolean: &t}, nil
	case nil:
		return nil, nil
	}
	if !raw {
		return nil, fmt.Errorf("the value is a %s, not a number, string or boolean (structured values need the RawFeedbackJsonString feature)", reflect.TypeOf(v).Kind())
	}
	data, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	if len(data) > MaxRawSize {
		return nil, fmt.Errorf("the value is %d bytes of JSON, over the %d-byte cap: point the path at a smaller part", len(data), MaxRawSize)
	}
	s := strings.TrimSpace(string(data))
	return &workv1.FieldValue{Type: workv1.JsonRaw, JsonRaw: &s}, nil
}
