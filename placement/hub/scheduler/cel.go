package scheduler

import (
	"fmt"
	"strings"

	"github.com/google/cel-go/cel"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	clusterlisterv1alpha1 "open-cluster-management.io/api/client/cluster/listers/cluster/v1alpha1"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	clusterv1alpha1 "open-cluster-management.io/api/cluster/v1alpha1"
	ocmcel "open-cluster-management.io/sdk-go/pkg/cel/common"
	ocmcellib "open-cluster-management.io/sdk-go/pkg/cel/library"
)

// celEnv is the CEL environment OCM's placements are written for: the
// variable managedCluster (the cluster as JSON) and the function
// managedCluster.scores("<AddOnPlacementScore>"), read from the snapshot.
// It is built on first use.
type celEnv struct {
	snap Snapshot
	env  *cel.Env
}

// celProgram is a compiled list of expressions, ANDed.
type celProgram struct {
	exprs    []string
	programs []cel.Program
}

func (e *celEnv) compile(exprs []string, field string) (*celProgram, error) {
	if e == nil {
		return nil, misconfigured("%s: CEL expressions are not supported here", field)
	}
	if e.env == nil {
		opts := append([]cel.EnvOption{ocmcellib.ManagedClusterLib(scoreLister{e.snap}), ocmcellib.JsonLib()}, ocmcel.BaseEnvOpts...)
		env, err := cel.NewEnv(opts...)
		if err != nil {
			return nil, fmt.Errorf("building the CEL environment: %w", err)
		}
		e.env = env
	}
	p := &celProgram{exprs: exprs}
	for i, expr := range exprs {
		ast, issues := e.env.Compile(expr)
		if issues != nil && issues.Err() != nil {
			return nil, misconfigured("%s.celExpressions[%d] %q does not compile: %s", field, i, expr, oneLine(issues.Err().Error()))
		}
		if ast.OutputType() != cel.BoolType && ast.OutputType() != cel.DynType {
			return nil, misconfigured("%s.celExpressions[%d] %q is a %s: it must be a bool", field, i, expr, ast.OutputType())
		}
		prg, err := e.env.Program(ast, cel.CostLimit(celconfig.PerCallLimit), cel.InterruptCheckFrequency(celconfig.CheckFrequency))
		if err != nil {
			return nil, misconfigured("%s.celExpressions[%d] %q cannot run: %s", field, i, expr, oneLine(err.Error()))
		}
		p.programs = append(p.programs, prg)
	}
	return p, nil
}

// matches evaluates every expression on the cluster; an expression that
// fails or is not true does not match, and its failure is returned as the
// reason.
func (p *celProgram) matches(cluster *clusterv1.ManagedCluster) (bool, string) {
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
// scores with, over a snapshot.
type scoreLister struct{ snap Snapshot }

func (l scoreLister) List(labels.Selector) ([]*clusterv1alpha1.AddOnPlacementScore, error) {
	return nil, nil
}

func (l scoreLister) AddOnPlacementScores(namespace string) clusterlisterv1alpha1.AddOnPlacementScoreNamespaceLister {
	return scoreNamespaceLister{snap: l.snap, namespace: namespace}
}

type scoreNamespaceLister struct {
	snap      Snapshot
	namespace string
}

func (l scoreNamespaceLister) List(labels.Selector) ([]*clusterv1alpha1.AddOnPlacementScore, error) {
	return nil, nil
}

func (l scoreNamespaceLister) Get(name string) (*clusterv1alpha1.AddOnPlacementScore, error) {
	if s := l.snap.Score(l.namespace, name); s != nil {
		return s, nil
	}
	return nil, apierrors.NewNotFound(clusterv1alpha1.Resource("addonplacementscores"), name)
}
