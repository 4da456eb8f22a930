// Command sampleapp is the local fleet's sample app: an HTTP server that
// answers every request with the name of the cluster it runs on, so that
// `kubectl port-forward` and curl on each cluster show it really runs there.
//
// It learns the name as any workload would, from the cluster: the
// well-known ClusterClaim id.k8s.io (KEP-2149), which the fleet sets on each
// managed cluster, read through the in-cluster API with the pod's service
// account. So an answer also proves that a pod reaches its API server at
// the default in-cluster address. It uses only the standard library, and
// builds to a static binary for an image FROM scratch.
package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"
)

const (
	serviceAccountDir = "/var/run/secrets/kubernetes.io/serviceaccount"
	claimPath         = "/apis/cluster.open-cluster-management.io/v1alpha1/clusterclaims/id.k8s.io"
)

func main() {
	addr := flag.String("listen", ":8080", "the address to serve on")
	get := flag.String("get", "", "instead of serving, GET this URL, print the body and exit (non-zero unless 200): a client for images with no other")
	flag.Parse()
	if *get != "" {
		os.Exit(fetch(*get))
	}
	app := &app{lookup: lookupClusterName}
	srv := &http.Server{Addr: *addr, Handler: app, ReadHeaderTimeout: 10 * time.Second}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(shutdown)
	}()
	log.Printf("sampleapp: serving on %s", *addr)
	if err := srv.ListenAndServe(); err != nil && !errors.Is(err, http.ErrServerClosed) {
		log.Fatal(err)
	}
}

// app answers with the cluster's name, looked up once it is known.
type app struct {
	lookup func(context.Context) (string, error)
	mu     sync.Mutex
	name   string
}

func (a *app) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/healthz" {
		fmt.Fprintln(w, "ok")
		return
	}
	name, err := a.clusterName(r.Context())
	if err != nil {
		log.Printf("sampleapp: %v", err)
		http.Error(w, "cannot tell which cluster this is: "+err.Error(), http.StatusServiceUnavailable)
		return
	}
	fmt.Fprintf(w, "hello from %s\n", name)
}

func (a *app) clusterName(ctx context.Context) (string, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.name != "" {
		return a.name, nil
	}
	name, err := a.lookup(ctx)
	if err != nil {
		return "", err
	}
	a.name = name
	return name, nil
}

// lookupClusterName reads the id.k8s.io ClusterClaim through the in-cluster
// API.
func lookupClusterName(ctx context.Context) (string, error) {
	host, port := os.Getenv("KUBERNETES_SERVICE_HOST"), os.Getenv("KUBERNETES_SERVICE_PORT")
	if host == "" || port == "" {
		return "", errors.New("not in a cluster: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are unset")
	}
	token, err := os.ReadFile(serviceAccountDir + "/token")
	if err != nil {
		return "", err
	}
	caPEM, err := os.ReadFile(serviceAccountDir + "/ca.crt")
	if err != nil {
		return "", err
	}
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(caPEM) {
		return "", errors.New("the service account's ca.crt holds no certificate")
	}
	client := &http.Client{
		Timeout:   10 * time.Second,
		Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: roots, MinVersion: tls.VersionTLS12}},
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "https://"+net.JoinHostPort(host, port)+claimPath, nil)
	if err != nil {
		return "", err
	}
	req.Header.Set("Authorization", "Bearer "+string(token))
	resp, err := client.Do(req)
	if err != nil {
		return "", fmt.Errorf("asking the API server for ClusterClaim id.k8s.io: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("asking the API server for ClusterClaim id.k8s.io: %s", resp.Status)
	}
	var claim struct {
		Spec struct {
			Value string `json:"value"`
		} `json:"spec"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&claim); err != nil {
		return "", err
	}
	if claim.Spec.Value == "" {
		return "", errors.New("ClusterClaim id.k8s.io has no value")
	}
	return claim.Spec.Value, nil
}

// fetch GETs url and prints its body; it returns the exit code.
func fetch(url string) int {
	client := &http.Client{Timeout: 10 * time.Second}
	resp, err := client.Get(url)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer resp.Body.Close()
	if _, err := io.Copy(os.Stdout, resp.Body); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if resp.StatusCode != http.StatusOK {
		fmt.Fprintln(os.Stderr, resp.Status)
		return 1
	}
	return 0
}
