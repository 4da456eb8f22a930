package override

import (
	"fmt"
	"regexp"
	"strings"

	clusterv1 "open-cluster-management.io/api/cluster/v1"
)

// variable matches ${CLUSTER_...}: the variables are the only ${…} an
// override replaces, so a shell's ${HOME} in a container's args stays.
var variable = regexp.MustCompile(`\$\{CLUSTER_[^}]*\}`)

// variables replace ${CLUSTER_NAME}, ${CLUSTER_LABEL:key} and
// ${CLUSTER_CLAIM:name} with the cluster's.
type variables struct{ cluster *clusterv1.ManagedCluster }

// expand is s with the cluster's variables replaced; an unknown
// ${CLUSTER_…}, or a label or claim the cluster lacks, is an error.
func (v variables) expand(s string) (string, error) {
	var err error
	out := variable.ReplaceAllStringFunc(s, func(m string) string {
		value, e := v.value(m[2 : len(m)-1])
		if e != nil && err == nil {
			err = e
		}
		return value
	})
	return out, err
}

func (v variables) value(name string) (string, error) {
	kind, key, err := parseVariable(name)
	switch {
	case err != nil:
		return "", err
	case kind == nameVariable:
		return v.cluster.Name, nil
	case kind == labelVariable:
		if value, ok := v.cluster.Labels[key]; ok {
			return value, nil
		}
		return "", fmt.Errorf("cluster %s has no label %s (${%s})", v.cluster.Name, key, name)
	}
	for _, c := range v.cluster.Status.ClusterClaims {
		if c.Name == key {
			return c.Value, nil
		}
	}
	return "", fmt.Errorf("cluster %s has no claim %s (${%s})", v.cluster.Name, key, name)
}

// The kinds of variable.
const (
	nameVariable = iota
	labelVariable
	claimVariable
)

// parseVariable reads the name inside ${…}: its kind, and the label or
// claim it names.
func parseVariable(name string) (kind int, key string, err error) {
	if name == "CLUSTER_NAME" {
		return nameVariable, "", nil
	}
	if key, ok := strings.CutPrefix(name, "CLUSTER_LABEL:"); ok && key != "" {
		return labelVariable, key, nil
	}
	if key, ok := strings.CutPrefix(name, "CLUSTER_CLAIM:"); ok && key != "" {
		return claimVariable, key, nil
	}
	return 0, "", fmt.Errorf("unknown variable ${%s}: use ${CLUSTER_NAME}, ${CLUSTER_LABEL:key} or ${CLUSTER_CLAIM:name}", name)
}

// checkVariables says whether every ${CLUSTER_…} in s is a variable.
func checkVariables(s string) error {
	for _, m := range variable.FindAllString(s, -1) {
		if _, _, err := parseVariable(m[2 : len(m)-1]); err != nil {
			return err
		}
	}
	return nil
}

// eachString replaces every string of a JSON value (decoded, changed in
// place) with what f makes of it, and returns the value.
func eachString(value any, f func(string) (string, error)) (any, error) {
	switch x := value.(type) {
	case string:
		return f(x)
	case map[string]any:
		for k, e := range x {
			out, err := eachString(e, f)
			if err != nil {
				return nil, err
			}
			x[k] = out
		}
	case []any:
		for i, e := range x {
			out, err := eachString(e, f)
			if err != nil {
				return nil, err
			}
			x[i] = out
		}
	}
	return value, nil
}
