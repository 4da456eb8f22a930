package localcluster

import (
	"fmt"
	"strings"
	"time"
)

// ports are the loopback ports one start of a cluster uses.
type ports struct {
	// host is the API server's address: loopback, or the fleet network's
	// host address when the cluster has a real node.
	host                                                  string
	etcdClient, etcdPeer, apiserver, kcm, scheduler, kwok int
}

func (p ports) server() string { return fmt.Sprintf("https://%s:%d", p.host, p.apiserver) }

// component is one process of a local cluster and how to tell it is ready.
type component struct {
	name string
	// path is the program; empty means the binary name in the bin dir.
	path  string
	args  []string
	ready readiness
}

// hubControllers are the kube-controller-manager controllers a hub needs:
// CSR signing and cleanup, namespace deletion, garbage collection,
// service-account tokens and role aggregation. No pod runs on a hub, so
// it makes no `default` service account and no `kube-root-ca.crt` config
// map in every namespace: a thousand clusters accepted at once are two
// thousand writes fewer.
var hubControllers = []string{
	"certificatesigningrequest-signing-controller",
	"certificatesigningrequest-cleaner-controller",
	"namespace-controller",
	"garbage-collector-controller",
	"serviceaccount-token-controller",
	"clusterrole-aggregation-controller",
}

func etcdComponent(name string, l layout, p ports) component {
	client := fmt.Sprintf("http://127.0.0.1:%d", p.etcdClient)
	peer := fmt.Sprintf("http://127.0.0.1:%d", p.etcdPeer)
	return component{
		name: "etcd",
		args: []string{
			"--name=" + name,
			"--data-dir=" + l.etcd(),
			"--listen-client-urls=" + client,
			"--advertise-client-urls=" + client,
			"--listen-peer-urls=" + peer,
			"--initial-advertise-peer-urls=" + peer,
			"--initial-cluster=" + name + "=" + peer,
			// A local cluster's data is disposable; fsync only slows a busy
			// machine down.
			"--unsafe-no-fsync",
			"--log-level=warn",
		},
		ready: httpReady(client+"/health", nil),
	}
}

func apiserverComponent(l layout, p ports) component {
	k := l.pki()
	return component{
		name: "kube-apiserver",
		args: []string{
			fmt.Sprintf("--etcd-servers=http://127.0.0.1:%d", p.etcdClient),
			"--bind-address=" + p.host,
			"--advertise-address=" + p.host,
			fmt.Sprintf("--secure-port=%d", p.apiserver),
			"--tls-cert-file=" + k.servingCert(),
			"--tls-private-key-file=" + k.servingKey(),
			"--client-ca-file=" + k.caCert(),
			"--service-account-key-file=" + k.saPub(),
			"--service-account-signing-key-file=" + k.saKey(),
			"--service-account-issuer=https://kubernetes.default.svc",
			"--service-cluster-ip-range=10.0.0.0/24",
			"--authorization-mode=Node,RBAC",
			"--enable-admission-plugins=NodeRestriction",
			// The API server calls kubelets (logs, exec, port-forward) as
			// an admin, at the address the node reports.
			"--kubelet-client-certificate=" + k.cert(adminIdentity),
			"--kubelet-client-key=" + k.key(adminIdentity),
			"--kubelet-preferred-address-types=InternalIP,Hostname",
			"--allow-privileged=true",
			// Webhooks and aggregated APIs behind a Service are called at
			// their pods' addresses, which the host routes to the nodes:
			// there is no kube-proxy in the API server's namespace to make
			// a ClusterIP reachable.
			"--enable-aggregator-routing=true",
			// The API server's own default: /debug/pprof, for cluster
			// admins only, is where a benchmark sees what a write costs
			// (CORRAL_BENCH_PROFILE_DIR).
			"--profiling=true",
		},
	}
}

// kcmComponent runs every controller, or only hubControllers on a hub
// without a real node (with one, pods run there and need the rest).
func kcmComponent(profile Profile, realNode bool, signing time.Duration, l layout, p ports) component {
	k := l.pki()
	controllers := "*"
	if profile == ProfileHub && !realNode {
		controllers = strings.Join(hubControllers, ",")
	}
	args := append(controlLoopArgs(l, kcmIdentity, p.kcm),
		"--use-service-account-credentials=true",
		"--controllers="+controllers,
		"--cluster-signing-cert-file="+k.caCert(),
		"--cluster-signing-key-file="+k.caKey(),
		"--service-account-private-key-file="+k.saKey(),
		"--root-ca-file="+k.caCert(),
	)
	if signing > 0 {
		args = append(args, "--cluster-signing-duration="+signing.String())
	}
	return component{name: "kube-controller-manager", args: args, ready: controlLoopReady(l, p.kcm)}
}

func schedulerComponent(l layout, p ports) component {
	return component{
		name:  "kube-scheduler",
		args:  controlLoopArgs(l, schedulerIdentity, p.scheduler),
		ready: controlLoopReady(l, p.scheduler),
	}
}

// controlLoopArgs are the flags kube-controller-manager and kube-scheduler
// share: their identity, a single instance (no leader election) and their
// health endpoint on port, served with the cluster's serving certificate.
func controlLoopArgs(l layout, id identity, port int) []string {
	k := l.pki()
	return []string{
		"--kubeconfig=" + l.componentKubeconfig(id),
		"--bind-address=127.0.0.1",
		fmt.Sprintf("--secure-port=%d", port),
		"--tls-cert-file=" + k.servingCert(),
		"--tls-private-key-file=" + k.servingKey(),
		"--leader-elect=false",
		"--profiling=false",
	}
}

// controlLoopReady is ready when /healthz on port answers over TLS that the
// cluster CA verifies.
func controlLoopReady(l layout, port int) readiness {
	k := l.pki()
	return httpReady(fmt.Sprintf("https://127.0.0.1:%d/healthz", port), &k)
}
