package scheduler

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/util/intstr"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"

	"github.com/corral-dev/corral/internal/clustercount"
	"github.com/corral-dev/corral/internal/clusterselector"
)

// Names of the built-in prioritizers, as spec.prioritizerPolicy names them.
const (
	Balance                   = "Balance"
	Steady                    = "Steady"
	ResourceAllocatableCPU    = "ResourceAllocatableCPU"
	ResourceAllocatableMemory = "ResourceAllocatableMemory"
	Spread                    = "Spread"
)

// Names of the filters, in the order they run.
const (
	FilterClusterSet      = "ClusterSet"
	FilterPredicate       = "Predicate"
	FilterTaintToleration = "TaintToleration"
)

// MaxWeight bounds a prioritizer's weight, as the api does: −10…10.
const MaxWeight = 10

// MisconfiguredError is a placement spec the scheduler cannot act on; its
// message says which field is wrong and what it must be.
type MisconfiguredError struct{ msg string }

func (e *MisconfiguredError) Error() string { return e.msg }

func misconfigured(format string, args ...any) error {
	return &MisconfiguredError{msg: fmt.Sprintf(format, args...)}
}

// prioritizer is one weighted prioritizer of a placement.
type prioritizer struct {
	name   string // Balance, AddOn/<resource>/<score>, …
	weight int32
	// builtIn is the built-in's name; empty for an AddOn score.
	builtIn string
	// addOnResource and addOnScore name an AddOn score.
	addOnResource, addOnScore string
}

// spreadTerm is one compiled spread constraint.
type spreadTerm struct {
	key     string
	claim   bool
	maxSkew int
	hard    bool // DoNotSchedule
}

// group is one predefined decision group.
type group struct {
	name string
	sel  *clusterselector.Selector
}

// compiled is a placement spec made ready to evaluate many clusters.
type compiled struct {
	wanted       int // -1: every feasible cluster
	predicates   []*clusterselector.Selector
	prioritizers []prioritizer
	spread       []spreadTerm
	groups       []group
	perGroup     intstr.IntOrString
	// scoreLimit is spec.scoreRateLimit; scoreLimitSet is false when the
	// spec leaves it out (the CRD defaults it, so only a hub without that
	// default does).
	scoreLimit    time.Duration
	scoreLimitSet bool
	sortByScore   bool
	// celScores: a CEL expression may call managedCluster.scores() (it
	// names it: CEL has no other way to call it), so a score change may
	// change which clusters pass the predicates.
	celScores    bool
	usesResource bool
}

// compile checks and compiles p's spec; a spec it cannot act on is a
// *MisconfiguredError.
func compile(p *clusterv1beta1.Placement, cel *clusterselector.Compiler) (*compiled, error) {
	c := &compiled{wanted: -1, perGroup: p.Spec.DecisionStrategy.GroupStrategy.ClustersPerDecisionGroup}
	if n := p.Spec.NumberOfClusters; n != nil {
		if *n < 0 {
			return nil, misconfigured("spec.numberOfClusters is %d: it must be 0 or more, or left out to select every matching cluster", *n)
		}
		c.wanted = int(*n)
	}
	for i, pred := range p.Spec.Predicates {
		sel, err := compileSelector(pred.RequiredClusterSelector, cel, fmt.Sprintf("spec.predicates[%d].requiredClusterSelector", i))
		if err != nil {
			return nil, err
		}
		c.celScores = c.celScores || slices.ContainsFunc(pred.RequiredClusterSelector.CelSelector.CelExpressions,
			func(e string) bool { return strings.Contains(e, "scores") })
		c.predicates = append(c.predicates, sel)
	}
	if err := checkTolerations(p.Spec.Tolerations); err != nil {
		return nil, err
	}
	var err error
	if c.prioritizers, err = compilePrioritizers(p.Spec.PrioritizerPolicy); err != nil {
		return nil, err
	}
	for _, pr := range c.prioritizers {
		c.usesResource = c.usesResource || pr.builtIn == ResourceAllocatableCPU || pr.builtIn == ResourceAllocatableMemory
	}
	if c.spread, err = compileSpread(p.Spec.SpreadPolicy); err != nil {
		return nil, err
	}
	if c.groups, err = compileGroups(p.Spec.DecisionStrategy.GroupStrategy); err != nil {
		return nil, err
	}
	switch p.Spec.SortBy {
	case "", clusterv1beta1.PlacementSortByClusterName:
	case clusterv1beta1.PlacementSortByScore:
		c.sortByScore = true
	default:
		return nil, misconfigured("spec.sortBy is %q: it must be %s or %s", p.Spec.SortBy, clusterv1beta1.PlacementSortByClusterName, clusterv1beta1.PlacementSortByScore)
	}
	if s := p.Spec.ScoreRateLimit; s != "" {
		d, err := time.ParseDuration(s)
		if err != nil || d < 0 {
			return nil, misconfigured("spec.scoreRateLimit is %q: it must be a duration such as 30s or 5m", s)
		}
		c.scoreLimit, c.scoreLimitSet = d, true
	}
	return c, nil
}

// compileSelector compiles cs; a selector it cannot compile is a
// *MisconfiguredError.
func compileSelector(cs clusterv1beta1.ClusterSelector, cel *clusterselector.Compiler, field string) (*clusterselector.Selector, error) {
	sel, err := cel.Compile(cs, field)
	if invalid := (*clusterselector.InvalidError)(nil); errors.As(err, &invalid) {
		return nil, misconfigured("%s", invalid.Error())
	}
	return sel, err
}

func checkTolerations(tolerations []clusterv1beta1.Toleration) error {
	for i, t := range tolerations {
		field := fmt.Sprintf("spec.tolerations[%d]", i)
		switch t.Operator {
		case "", clusterv1beta1.TolerationOpEqual:
			if t.Key == "" {
				return misconfigured("%s has no key, so its operator must be Exists (it is %s)", field, opName(t.Operator))
			}
		case clusterv1beta1.TolerationOpExists:
			if t.Value != "" {
				return misconfigured("%s has operator Exists, so its value must be empty (it is %q)", field, t.Value)
			}
		default:
			return misconfigured("%s.operator is %q: it must be Equal or Exists", field, t.Operator)
		}
		switch t.Effect {
		case "", clusterv1.TaintEffectNoSelect, clusterv1.TaintEffectPreferNoSelect, clusterv1.TaintEffectNoSelectIfNew:
		default:
			return misconfigured("%s.effect is %q: it must be NoSelect, PreferNoSelect or NoSelectIfNew, or empty for all", field, t.Effect)
		}
	}
	return nil
}

func opName(op clusterv1beta1.TolerationOperator) string {
	if op == "" {
		return "Equal"
	}
	return string(op)
}

// compilePrioritizers merges the policy's configurations over the mode's
// defaults and drops those of weight 0; the order is that of the policy,
// the defaults first.
func compilePrioritizers(policy clusterv1beta1.PrioritizerPolicy) ([]prioritizer, error) {
	var out []prioritizer
	switch policy.Mode {
	case "", clusterv1beta1.PrioritizerPolicyModeAdditive:
		out = []prioritizer{{name: Balance, builtIn: Balance, weight: 1}, {name: Steady, builtIn: Steady, weight: 1}}
	case clusterv1beta1.PrioritizerPolicyModeExact:
	default:
		return nil, misconfigured("spec.prioritizerPolicy.mode is %q: it must be Additive or Exact", policy.Mode)
	}
	for i, conf := range policy.Configurations {
		field := fmt.Sprintf("spec.prioritizerPolicy.configurations[%d]", i)
		pr, err := compilePrioritizer(conf, field)
		if err != nil {
			return nil, err
		}
		if j := indexOf(out, pr.name); j >= 0 {
			out[j].weight = pr.weight
		} else {
			out = append(out, pr)
		}
	}
	kept := out[:0]
	for _, pr := range out {
		if pr.weight != 0 {
			kept = append(kept, pr)
		}
	}
	return kept, nil
}

func compilePrioritizer(conf clusterv1beta1.PrioritizerConfig, field string) (prioritizer, error) {
	sc := conf.ScoreCoordinate
	if sc == nil {
		return prioritizer{}, misconfigured("%s.scoreCoordinate is missing: name a BuiltIn prioritizer or an AddOn score", field)
	}
	if conf.Weight < -MaxWeight || conf.Weight > MaxWeight {
		return prioritizer{}, misconfigured("%s.weight is %d: it must be between -%d and %d", field, conf.Weight, MaxWeight, MaxWeight)
	}
	switch sc.Type {
	case "", clusterv1beta1.ScoreCoordinateTypeBuiltIn:
		switch sc.BuiltIn {
		case Balance, Steady, ResourceAllocatableCPU, ResourceAllocatableMemory, Spread:
			return prioritizer{name: sc.BuiltIn, builtIn: sc.BuiltIn, weight: conf.Weight}, nil
		}
		return prioritizer{}, misconfigured("%s.scoreCoordinate.builtIn is %q: it must be one of %s", field, sc.BuiltIn,
			strings.Join([]string{Balance, Steady, ResourceAllocatableCPU, ResourceAllocatableMemory, Spread}, ", "))
	case clusterv1beta1.ScoreCoordinateTypeAddOn:
		if sc.AddOn == nil || sc.AddOn.ResourceName == "" || sc.AddOn.ScoreName == "" {
			return prioritizer{}, misconfigured("%s.scoreCoordinate.addOn must name a resourceName and a scoreName", field)
		}
		return prioritizer{name: "AddOn/" + sc.AddOn.ResourceName + "/" + sc.AddOn.ScoreName, weight: conf.Weight,
			addOnResource: sc.AddOn.ResourceName, addOnScore: sc.AddOn.ScoreName}, nil
	}
	return prioritizer{}, misconfigured("%s.scoreCoordinate.type is %q: it must be BuiltIn or AddOn", field, sc.Type)
}

func indexOf(prs []prioritizer, name string) int {
	for i := range prs {
		if prs[i].name == name {
			return i
		}
	}
	return -1
}

func compileSpread(policy clusterv1beta1.SpreadPolicy) ([]spreadTerm, error) {
	var out []spreadTerm
	for i, t := range policy.SpreadConstraints {
		field := fmt.Sprintf("spec.spreadPolicy.spreadConstraints[%d]", i)
		term := spreadTerm{key: t.TopologyKey, maxSkew: int(t.MaxSkew)}
		if t.TopologyKey == "" {
			return nil, misconfigured("%s.topologyKey is empty: name a label or a cluster claim", field)
		}
		switch t.TopologyKeyType {
		case clusterv1beta1.TopologyKeyTypeLabel:
		case clusterv1beta1.TopologyKeyTypeClaim:
			term.claim = true
		default:
			return nil, misconfigured("%s.topologyKeyType is %q: it must be Label or Claim", field, t.TopologyKeyType)
		}
		switch {
		case t.MaxSkew == 0:
			term.maxSkew = 1
		case t.MaxSkew < 0:
			return nil, misconfigured("%s.maxSkew is %d: it must be 1 or more", field, t.MaxSkew)
		}
		switch t.WhenUnsatisfiable {
		case "", clusterv1beta1.ScheduleAnyway:
		case clusterv1beta1.DoNotSchedule:
			term.hard = true
		default:
			return nil, misconfigured("%s.whenUnsatisfiable is %q: it must be DoNotSchedule or ScheduleAnyway", field, t.WhenUnsatisfiable)
		}
		out = append(out, term)
	}
	return out, nil
}

func compileGroups(gs clusterv1beta1.GroupStrategy) ([]group, error) {
	if _, err := groupLength(gs.ClustersPerDecisionGroup, 1); err != nil {
		return nil, err
	}
	var out []group
	for i, g := range gs.DecisionGroups {
		sel, err := compileSelector(clusterv1beta1.ClusterSelector{LabelSelector: g.ClusterSelector.LabelSelector, ClaimSelector: g.ClusterSelector.ClaimSelector},
			nil, fmt.Sprintf("spec.decisionStrategy.groupStrategy.decisionGroups[%d].groupClusterSelector", i))
		if err != nil {
			return nil, err
		}
		out = append(out, group{name: g.GroupName, sel: sel})
	}
	return out, nil
}

// groupLength is how many clusters a decision group holds at most, of
// total selected: clustersPerDecisionGroup as clustercount.Of reads it; unset,
// 0 or more than total means one group of all.
func groupLength(v intstr.IntOrString, total int) (int, error) {
	n, err := clustercount.Of(v, total)
	if err != nil {
		return 0, misconfigured("spec.decisionStrategy.groupStrategy.clustersPerDecisionGroup is %q: it must be a number or a percentage such as 25%%", v.StrVal)
	}
	if n <= 0 || n > total {
		n = total
	}
	return n, nil
}
