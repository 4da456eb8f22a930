// Package clusterselector evaluates OCM's ClusterSelector (a Placement
// predicate's labelSelector, claimSelector and celSelector, ANDed) on
// ManagedClusters: the placement scheduler's predicates and decision
// groups, and the propagation addon's per-cluster rules, so that a
// selector means the same wherever a user writes it.
package clusterselector

import (
	"fmt"
	"strings"

	"github.com/google/cel-go/cel"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	clusterlisterv1alpha1 "open-cluster-management.io/api/client/cluster/listers/cluster/v1alpha1"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	clusterv1alpha1 "open-cluster-management.io/api/cluster/v1alpha1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"
	ocmcel "open-cluster-management.io/sdk-go/pkg/cel/common"
	ocmcellib "open-cluster-management.io/sdk-go/pkg/cel/library"
)

// Scores are the AddOnPlacementScores a CEL expression reads with
// managedCluster.scores("<name>"): the one of that name in the cluster's
// namespace, nil when there is none.
type Scores interface {
	Score(namespace, name string) *clusterv1alpha1.AddOnPlacementScore
}

// Compiler compiles ClusterSelectors. The CEL environment OCM's
// placements are written for (the variable managedCluster, the cluster
// as JSON, and managedCluster.scores) is built on its first CEL
// expression. A nil *Compiler compiles selectors without CEL, and refuses
// those with.
type Compiler struct {
	scores Scores
	env    *cel.Env
}

// NewCompiler returns a Compiler whose CEL expressions read scores.
func NewCompiler(scores Scores) *Compiler { return &Compiler{scores: scores} }

// InvalidError is a selector that cannot be compiled; its message names
// the field and says what is wrong, in one line.
type InvalidError struct{ msg string }

func (e *InvalidError) Error() string { return e.msg }

func invalid(format string, args ...any) error {
	return &InvalidError{msg: fmt.Sprintf(format, args...)}
}

// Selector is one compiled ClusterSelector: labels AND claims AND CEL.
type Selector struct {
	labels labels.Selector
	claims labels.Selector // nil: no claim requirement
	cel    *program        // nil: no CEL expression
}

// Compile compiles cs; field names it in errors (for example
// spec.predicates[0].requiredClusterSelector). A selector that cannot be
// compiled is an *InvalidError.
func (c *Compiler) Compile(cs clusterv1beta1.ClusterSelector, field string) (*Selector, error) {
	sel := &Selector{}
	var err error
	if sel.labels, err = metav1.LabelSelectorAsSelector(&cs.LabelSelector); err != nil {
		return nil, invalid("%s.labelSelector is invalid: %v", field, err)
	}
	if len(cs.ClaimSelector.MatchExpressions) > 0 {
		if sel.claims, err = metav1.LabelSelectorAsSelector(&metav1.LabelSelector{MatchExpressions: cs.ClaimSelector.MatchExpressions}); err != nil {
			return nil, invalid("%s.claimSelector is invalid: %v", field, err)
		}
	}
	if exprs := cs.CelSelector.CelExpressions; len(exprs) > 0 {
		if sel.cel, err = c.compileCEL(exprs, field+".celSelector"); err != nil {
			return nil, err
		}
	}
	return sel, nil
}

// Matches says whether the cluster matches the selector, and, when
// explain, why not.
func (s *Selector) Matches(c *clusterv1.ManagedCluster, explain bool) (bool, string) {
	if !s.labels.Matches(labels.Set(c.Labels)) {
		return false, detail(explain, "labels do not match %s", s.labels)
	}
	if s.claims != nil && !s.claims.Matches(Claims(c)) {
		return false, detail(explain, "claims do not match %s", s.claims)
	}
	if s.cel != nil {
		if ok, why := s.cel.matches(c); !ok {
			return false, "CEL " + why
		}
	}
	return true, ""
}

// Claims are a cluster's ClusterClaims as a label set, for claim
// selectors and claim topology keys.
func Claims(c *clusterv1.ManagedCluster) labels.Set {
	if len(c.Status.ClusterClaims) == 0 {
		return nil
	}
	out := make(labels.Set, len(c.Status.ClusterClaims))
	for _, claim := range c.Status.ClusterClaims {
		out[claim.Name] = claim.Value
	}
	return out
}

func detail(explain bool, format string, args ...any) string {
	if !explain {
		return ""
	}
	return fmt.Sprintf(format, args...)
}

// program is a compiled list of CEL expressions, ANDed.
type program struct {
	exprs    []string
	programs []cel.Program
}

func (c *Compiler) compileCEL(exprs []string, field string) (*program, error) {
	if c == nil {
		return nil, invalid("%s: CEL expressions are not supported here", field)
	}
	if c.env == nil {
		opts := append([]cel.EnvOption{ocmcellib.ManagedClusterLib(scoreLister{c.scores}), ocmcellib.JsonLib()}, ocmcel.BaseEnvOpts...)
		env, err := cel.NewEnv(opts...)
		if err != nil {
			return nil, fmt.Errorf("building the CEL environment: %w", err)
		}
		c.env = env
	}
	p := &program{exprs: exprs}
	for i, expr := range exprs {
		ast, issues := c.env.Compile(expr)
		if issues != nil && issues.Err() != nil {
			return nil, invalid("%s.celExpressions[%d] %q does not compile: %s", field, i, expr, oneLine(issues.Err().Error()))
		}
		if ast.OutputType() != cel.BoolType && ast.OutputType() != cel.DynType {
			return nil, invalid("%s.celExpressions[%d] %q is a %s: it must be a bool", field, i, expr, ast.OutputType())
		}
		prg, err := c.env.Program(ast, cel.CostLimit(celconfig.PerCallLimit), cel.InterruptCheckFrequency(celconfig.CheckFrequency))
		if err != nil {
			return nil, invalid("%s.celExpressions[%d] %q cannot run: %s", field, i, expr, oneLine(err.Error()))
		}
		p.programs = append(p.programs, prg)
	}
	return p, nil
}

// matches evaluates every expression on the cluster; an expression that
// fails or is not true does not match, and its failure is returned as the
// reason.
func (p *program) matches(cluster *clusterv1.ManagedCluster) (bool, string) {
	obj, err := runtime.DefaultUnstructuredConverter.ToUnstructured(cluster)
	if err != nil {
		return false, err.Error()
	}
	input := map[string]any{"managedCluster": obj}
	for i, prg := range p.programs {
		out, _, err := prg.Eval(input)
		if err != nil {
			return false, fmt.Sprintf("%q failed: %s", p.exprs[i], oneLine(err.Error()))
		}
		if b, ok := out.Value().(bool); !ok || !b {
			return false, fmt.Sprintf("%q is false", p.exprs[i])
		}
	}
	return true, ""
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// scoreLister is the AddOnPlacementScore lister the CEL library reads
// scores with, over Scores.
type scoreLister struct{ scores Scores }

func (l scoreLister) List(labels.Selector) ([]*clusterv1alpha1.AddOnPlacementScore, error) {
	return nil, nil
}

func (l scoreLister) AddOnPlacementScores(namespace string) clusterlisterv1alpha1.AddOnPlacementScoreNamespaceLister {
	return scoreNamespaceLister{scores: l.scores, namespace: namespace}
}

type scoreNamespaceLister struct {
	scores    Scores
	namespace string
}

func (l scoreNamespaceLister) List(labels.Selector) ([]*clusterv1alpha1.AddOnPlacementScore, error) {
	return nil, nil
}

func (l scoreNamespaceLister) Get(name string) (*clusterv1alpha1.AddOnPlacementScore, error) {
	if l.scores != nil {
		if s := l.scores.Score(l.namespace, name); s != nil {
			return s, nil
		}
	}
	return nil, apierrors.NewNotFound(clusterv1alpha1.Resource("addonplacementscores"), name)
}
