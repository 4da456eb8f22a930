package localcluster

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net/http"
	"os"
	"time"
)

// readiness returns nil once a component serves.
type readiness func(ctx context.Context) error

// pollInterval is how often readiness is checked while a cluster starts.
const pollInterval = 100 * time.Millisecond

// httpReady is ready when url answers 200. With a pki the server certificate
// is verified against the cluster CA.
func httpReady(url string, k *pki) readiness {
	return func(ctx context.Context) error {
		client := &http.Client{Timeout: 5 * time.Second}
		if k != nil {
			pool, err := caPool(k.caCert())
			if err != nil {
				return err
			}
			client.Transport = &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}}
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return err
		}
		resp, err := client.Do(req)
		if err != nil {
			return err
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("%s answered %s", url, resp.Status)
		}
		return nil
	}
}

func caPool(path string) (*x509.CertPool, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(b) {
		return nil, fmt.Errorf("%s holds no certificate", path)
	}
	return pool, nil
}

// waitFor polls check until it succeeds, p exits, or ctx ends. The error
// names what was waited for and the last reason it was not ready.
func waitFor(ctx context.Context, what string, p *process, check readiness) error {
	ticker := time.NewTicker(pollInterval)
	defer ticker.Stop()
	var last error
	for {
		if last = check(ctx); last == nil {
			return nil
		}
		var exited <-chan struct{}
		if p != nil {
			exited = p.exited
		}
		select {
		case <-exited:
			return p.exitError()
		case <-ctx.Done():
			return fmt.Errorf("%s was not ready in time: %w", what, last)
		case <-ticker.C:
		}
	}
}
