// Package clustercount reads the api's counts of clusters (maxFailures,
// maxConcurrency, clustersPerDecisionGroup): an IntOrString that is a
// number, a number in a string (as the api's patterns allow), or a whole
// percentage of a total.
package clustercount

import (
	"fmt"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/util/intstr"
)

// Of is how many of total clusters v names: the number, or the percentage
// of total rounded up, in whole numbers (7% of 100 is 7, not the 8 a
// float's 7.000000000000001 would round up to). A string that is neither
// is an error.
func Of(v intstr.IntOrString, total int) (int, error) {
	if v.Type == intstr.Int {
		return v.IntValue(), nil
	}
	s, pct := strings.CutSuffix(v.StrVal, "%")
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("%q is not a number of clusters or a percentage", v.StrVal)
	}
	if pct {
		n = (n*total + 99) / 100
	}
	return n, nil
}
