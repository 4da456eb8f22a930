// Package override renders what one cluster receives of a propagation's
// object: the rules of the OverridePolicies and ClusterOverridePolicies
// that select it, applied in order (Order), those whose cluster selector
// matches the cluster, with the cluster's variables (${CLUSTER_NAME},
// ${CLUSTER_LABEL:key}, ${CLUSTER_CLAIM:name}) in what they write.
//
// It is pure: the distributor gives it the object, the policies and the
// cluster, and `corral propagation get --cluster` renders with the same
// code. A rule that cannot apply is an *Error naming its policy and rule,
// and the object is left as it was.
package override
