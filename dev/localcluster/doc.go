// Package localcluster starts and stops local Kubernetes control planes made
// of the real binaries that `make tools` builds into bin/: etcd,
// kube-apiserver, kube-controller-manager and, for managed clusters,
// kube-scheduler and kwok with fake nodes.
//
// It owns one data directory per cluster (PKI, etcd data, kubeconfigs and the
// logs of every component) and the child processes it starts. The processes
// die with the process that started them (parent-death signal), a directory
// is locked while a cluster runs in it, and a cluster whose component exits
// unexpectedly reports it through Done and Err.
//
// Tests and `corral dev` are its users; it never talks to a cluster it did
// not start.
package localcluster
