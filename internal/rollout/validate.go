package rollout

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/util/intstr"
	clusterv1alpha1 "open-cluster-management.io/api/cluster/v1alpha1"
)

// Validate checks a rollout strategy's type and the values of that
// type's settings.
func Validate(rs clusterv1alpha1.RolloutStrategy) error {
	switch rs.Type {
	case "", clusterv1alpha1.All:
		if rs.All != nil {
			return rolloutConfig("all", rs.All.RolloutConfig)
		}
	case clusterv1alpha1.Progressive:
		if p := rs.Progressive; p != nil {
			if err := threshold("progressive.maxConcurrency", p.MaxConcurrency); err != nil {
				return err
			}
			return rolloutConfig("progressive", p.RolloutConfig)
		}
	case clusterv1alpha1.ProgressivePerGroup:
		if p := rs.ProgressivePerGroup; p != nil {
			return rolloutConfig("progressivePerGroup", p.RolloutConfig)
		}
	default:
		return fmt.Errorf("type %q is not a rollout strategy: use All, Progressive or ProgressivePerGroup", rs.Type)
	}
	return nil
}

// deadlinePattern is the api's form of a progressDeadline: a whole number
// of hours, minutes or seconds, or None.
var deadlinePattern = regexp.MustCompile(`^([0-9]+[hms])+$`)

func rolloutConfig(field string, c clusterv1alpha1.RolloutConfig) error {
	if c.MinSuccessTime.Duration < 0 {
		return fmt.Errorf("%s.minSuccessTime is %s: it must not be negative", field, c.MinSuccessTime.Duration)
	}
	if _, err := ProgressDeadline(c.ProgressDeadline); err != nil {
		return fmt.Errorf("%s.%w", field, err)
	}
	return threshold(field+".maxFailures", c.MaxFailures)
}

// ProgressDeadline parses a rollout's progressDeadline: nil, no deadline,
// for "" and None.
func ProgressDeadline(s string) (*time.Duration, error) {
	if s == "" || s == "None" {
		return nil, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || !deadlinePattern.MatchString(s) {
		return nil, fmt.Errorf("progressDeadline %q is not a duration: give e.g. 90s, 30m or 2h, or None", s)
	}
	return &d, nil
}

// threshold checks a count or percentage of clusters: a whole number of 0
// or more, or 0%-100%.
func threshold(field string, v intstr.IntOrString) error {
	if v.Type == intstr.Int {
		if v.IntVal < 0 {
			return fmt.Errorf("%s is %d: give a number of clusters (0 or more) or a percentage", field, v.IntVal)
		}
		return nil
	}
	s := v.StrVal
	num, pct := strings.CutSuffix(s, "%")
	n, err := strconv.Atoi(num)
	switch {
	case err != nil || n < 0:
		return fmt.Errorf("%s %q is not a number of clusters or a percentage: give e.g. 2 or 25%%", field, s)
	case pct && n > 100:
		return fmt.Errorf("%s %q is over 100%%", field, s)
	}
	return nil
}
