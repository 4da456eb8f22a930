package cli

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	clusterv1alpha1 "open-cluster-management.io/api/cluster/v1alpha1"

	"github.com/corral-dev/corral/internal/rollout"
)

// The rollout flags, by name.
const (
	flagRollout          = "rollout"
	flagMaxConcurrency   = "max-concurrency"
	flagMinSuccessTime   = "min-success-time"
	flagProgressDeadline = "progress-deadline"
	flagMaxFailures      = "max-failures"
	flagMandatoryGroups  = "mandatory-groups"
)

var rolloutFlags = []string{flagRollout, flagMaxConcurrency, flagMinSuccessTime, flagProgressDeadline, flagMaxFailures, flagMandatoryGroups}

// RolloutFlags are how a ManifestWorkReplicaSet rolls its works out over
// its placement's clusters: OCM's RolloutStrategy.
type RolloutFlags struct {
	Type             string
	MaxConcurrency   string
	MinSuccessTime   time.Duration
	ProgressDeadline string
	MaxFailures      string
	MandatoryGroups  []string
}

// rolloutGiven lists the rollout flags given a value.
func (o *CreateOptions) rolloutGiven() []string {
	r := o.Rollout
	var given []string
	for i, set := range []bool{r.Type != "", r.MaxConcurrency != "", r.MinSuccessTime != 0, r.ProgressDeadline != "", r.MaxFailures != "", len(r.MandatoryGroups) > 0} {
		if set {
			given = append(given, "--"+rolloutFlags[i])
		}
	}
	return given
}

// strategy is the flags' strategy over old (the placement ref's, on
// apply; the zero strategy, All, when creating): a flag given replaces
// its setting, and a new type keeps the settings the old one shared.
func (o *CreateOptions) strategy(old clusterv1alpha1.RolloutStrategy) (clusterv1alpha1.RolloutStrategy, error) {
	r := o.Rollout
	var cfg clusterv1alpha1.RolloutConfig
	var groups clusterv1alpha1.MandatoryDecisionGroups
	var maxConcurrency intstr.IntOrString
	switch {
	case old.All != nil:
		cfg = old.All.RolloutConfig
	case old.Progressive != nil:
		cfg, groups, maxConcurrency = old.Progressive.RolloutConfig, old.Progressive.MandatoryDecisionGroups, old.Progressive.MaxConcurrency
	case old.ProgressivePerGroup != nil:
		cfg, groups = old.ProgressivePerGroup.RolloutConfig, old.ProgressivePerGroup.MandatoryDecisionGroups
	}
	typ := old.Type
	if r.Type != "" {
		typ = clusterv1alpha1.RolloutType(r.Type)
	}
	if typ == "" {
		typ = clusterv1alpha1.All
	}
	if r.MinSuccessTime != 0 {
		cfg.MinSuccessTime = metav1.Duration{Duration: r.MinSuccessTime}
	}
	if r.ProgressDeadline != "" {
		cfg.ProgressDeadline = r.ProgressDeadline
	}
	if r.MaxFailures != "" {
		cfg.MaxFailures = intstr.Parse(r.MaxFailures)
	}
	if r.MaxConcurrency != "" {
		if typ != clusterv1alpha1.Progressive {
			return old, fmt.Errorf("--max-concurrency applies to a Progressive rollout only: e.g. --rollout Progressive --max-concurrency 25%%")
		}
		maxConcurrency = intstr.Parse(r.MaxConcurrency)
	}
	if len(r.MandatoryGroups) > 0 {
		if typ == clusterv1alpha1.All {
			return old, fmt.Errorf("--mandatory-groups applies to a Progressive or ProgressivePerGroup rollout: e.g. --rollout ProgressivePerGroup --mandatory-groups canary")
		}
		groups.MandatoryDecisionGroups = mandatoryGroups(r.MandatoryGroups)
	}
	s := clusterv1alpha1.RolloutStrategy{Type: typ}
	switch typ {
	case clusterv1alpha1.All:
		s.All = &clusterv1alpha1.RolloutAll{RolloutConfig: cfg}
	case clusterv1alpha1.Progressive:
		s.Progressive = &clusterv1alpha1.RolloutProgressive{RolloutConfig: cfg, MandatoryDecisionGroups: groups, MaxConcurrency: maxConcurrency}
	case clusterv1alpha1.ProgressivePerGroup:
		s.ProgressivePerGroup = &clusterv1alpha1.RolloutProgressivePerGroup{RolloutConfig: cfg, MandatoryDecisionGroups: groups}
	}
	if err := rollout.Validate(s); err != nil {
		return old, flagError(err)
	}
	return s, nil
}

// mandatoryGroups reads --mandatory-groups: a number is a group's index,
// anything else its name.
func mandatoryGroups(vs []string) []clusterv1alpha1.MandatoryDecisionGroup {
	var groups []clusterv1alpha1.MandatoryDecisionGroup
	for _, v := range vs {
		if i, err := strconv.ParseInt(v, 10, 32); err == nil {
			groups = append(groups, clusterv1alpha1.MandatoryDecisionGroup{GroupIndex: int32(i)})
		} else {
			groups = append(groups, clusterv1alpha1.MandatoryDecisionGroup{GroupName: v})
		}
	}
	return groups
}

// validateRollout checks the rollout flags alone, each in one line naming
// the flag and an example.
func (o *CreateOptions) validateRollout() error {
	r := o.Rollout
	switch clusterv1alpha1.RolloutType(r.Type) {
	case "", clusterv1alpha1.All, clusterv1alpha1.Progressive, clusterv1alpha1.ProgressivePerGroup:
	default:
		return fmt.Errorf("--rollout %q is not All, Progressive or ProgressivePerGroup: e.g. --rollout Progressive --max-concurrency 25%%", r.Type)
	}
	if given := o.rolloutGiven(); len(given) > 0 && len(o.Clusters) > 0 {
		return fmt.Errorf("%s rolls out a --placement's works: with --clusters every work is written at once; drop it, or deliver with --placement", strings.Join(given, ", "))
	}
	// Each knob, alone, on the type that has them all; then with the type
	// given. (On apply, the set's own type is checked when it is read.)
	_, err := (&CreateOptions{Rollout: RolloutFlags{
		Type: string(clusterv1alpha1.Progressive), MaxConcurrency: r.MaxConcurrency, MinSuccessTime: r.MinSuccessTime,
		ProgressDeadline: r.ProgressDeadline, MaxFailures: r.MaxFailures,
	}}).strategy(clusterv1alpha1.RolloutStrategy{})
	if err == nil && (r.Type != "" || !o.Apply) {
		_, err = o.strategy(clusterv1alpha1.RolloutStrategy{})
	}
	return err
}

// flagError names the flag of a rollout.Validate error in place of its
// field.
func flagError(err error) error {
	msg := err.Error()
	for field, flag := range map[string]string{
		"maxConcurrency": flagMaxConcurrency, "minSuccessTime": flagMinSuccessTime,
		"progressDeadline": flagProgressDeadline, "maxFailures": flagMaxFailures,
	} {
		if i := strings.Index(msg, field); i >= 0 {
			return fmt.Errorf("--%s%s", flag, msg[i+len(field):])
		}
	}
	return err
}
