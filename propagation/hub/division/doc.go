// Package division splits a total of replicas over clusters by weight,
// for a propagation whose replicas are Divided rather than Duplicated.
//
// Each cluster's share is its quota, total × weight / sum of weights,
// rounded down or, only where the quota has a fraction, up: as even as
// the weights allow. The shares add up to the total. Which fractional
// quotas are rounded up is where divisions differ, and Divide rounds up
// those of the clusters that already run more than their quota rounded
// down, so that a change of the clusters or of their weights starts as
// few replicas as it can; then the larger fractions; then by cluster
// name, so that the division is the same on every run.
package division
