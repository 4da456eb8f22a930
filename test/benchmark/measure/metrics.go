package measure

import (
	"bufio"
	"context"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"k8s.io/client-go/kubernetes"
)

// APIWrites counts an API server's mutating requests so far by verb and
// resource ("PATCH manifestworks/status", with "(409)" after a refused
// one), from its apiserver_request_total: every client's.
func APIWrites(ctx context.Context, kube kubernetes.Interface) map[string]int {
	return apiRequests(ctx, kube, false)
}

// APIReads counts an API server's reads so far (GET, LIST, WATCH) as
// APIWrites counts its writes: what a component's reads cost the API
// server beside the writes a floor makes too.
func APIReads(ctx context.Context, kube kubernetes.Interface) map[string]int {
	return apiRequests(ctx, kube, true)
}

func apiRequests(ctx context.Context, kube kubernetes.Interface, reads bool) map[string]int {
	raw, err := kube.CoreV1().RESTClient().Get().AbsPath("/metrics").DoRaw(ctx)
	if err != nil {
		return nil
	}
	out := map[string]int{}
	for _, line := range strings.Split(string(raw), "\n") {
		if !strings.HasPrefix(line, "apiserver_request_total{") {
			continue
		}
		verb := label(line, "verb")
		switch verb {
		case "GET", "LIST", "WATCH", "WATCHLIST", "CONNECT":
			if !reads {
				continue
			}
		default:
			if reads {
				continue
			}
		}
		key := verb + " " + label(line, "resource")
		if sub := label(line, "subresource"); sub != "" {
			key += "/" + sub
		}
		if code := label(line, "code"); !strings.HasPrefix(code, "2") {
			key += "(" + code + ")"
		}
		out[key] += int(metricValue(line))
	}
	return out
}

// Since is after minus before (write or reconcile counts), leaving out
// what did not change, and their total.
func Since(before, after map[string]int) (map[string]int, int) {
	out, total := map[string]int{}, 0
	for k, v := range after {
		if d := v - before[k]; d > 0 {
			out[k] = d
			total += d
		}
	}
	return out, total
}

// FormatCounts lists counts by key: "PATCH leases=3 POST events=1".
func FormatCounts(counts map[string]int) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(counts)) {
		parts = append(parts, fmt.Sprintf("%s=%d", k, counts[k]))
	}
	return strings.Join(parts, " ")
}

// Scrape sums a counter of a Prometheus endpoint (url) by the given
// labels, joined with spaces: Scrape(u, "rest_client_requests_total",
// "method", "code") counts "PATCH 409" and the like.
func Scrape(url, name string, labels ...string) map[string]int {
	out := map[string]int{}
	resp, err := http.Get(url) //nolint:noctx // a loopback scrape
	if err != nil {
		return out
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, name+"{") {
			continue
		}
		var key []string
		for _, l := range labels {
			key = append(key, label(line, l))
		}
		if v := int(metricValue(line)); v > 0 {
			out[strings.Join(key, " ")] += v
		}
	}
	return out
}

func label(line, name string) string {
	_, rest, ok := strings.Cut(line, name+`="`)
	if !ok {
		return ""
	}
	v, _, _ := strings.Cut(rest, `"`)
	return v
}

func metricValue(line string) float64 {
	v, _ := strconv.ParseFloat(line[strings.LastIndexByte(line, ' ')+1:], 64)
	return v
}
