// Package charts holds corral's Helm charts — the hub's (corral-hub) and a
// managed cluster's agent's (corral-agent) — and renders them as Helm
// does, so that `corral init`, `corral join`, their `--output yaml` and
// `helm install` make the same objects from one source.
//
// The hub chart's crds/ directory holds the CRDs (Helm installs them before
// the templates) and is package crds, which reads them for corral; Render
// returns the templates' objects only, and callers take the CRDs from
// package crds.
package charts

import (
	"bufio"
	"bytes"
	"embed"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"

	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/engine"
	"helm.sh/helm/v3/pkg/releaseutil"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"
)

// The charts' templates and values; crds/ is left out (see the package
// doc).
//
//go:embed corral-hub/Chart.yaml corral-hub/values.yaml corral-hub/.helmignore all:corral-hub/templates
//go:embed corral-agent/Chart.yaml corral-agent/values.yaml corral-agent/.helmignore all:corral-agent/templates
var files embed.FS

// Chart names one of corral's charts.
type Chart string

// corral's charts.
const (
	Hub   Chart = "corral-hub"
	Agent Chart = "corral-agent"
)

// Default namespaces of the releases, OCM's: the hub's controllers run
// where OCM's hub controllers do, the agent where OCM's klusterlet agent
// does (and where the tools that read its Secrets look).
const (
	HubNamespace   = "open-cluster-management-hub"
	AgentNamespace = "open-cluster-management-agent"
)

// Names of the Deployments the charts make: the code that waits on them,
// reports them and removes them finds them by these.
const (
	HubDeployment   = "corral-hub"
	AgentDeployment = "corral-agent"
)

// Names of the ServiceAccounts the hub and the agent run as.
const (
	HubServiceAccount   = "corral-hub"
	AgentServiceAccount = "corral-agent"
)

// ManagedBy is .Release.Service when corral renders a chart: the
// app.kubernetes.io/managed-by label of what `corral init` and `corral
// join` install (Helm's own releases say Helm).
const ManagedBy = "corral"

// Release says how to render a chart: as Helm's release name, namespace
// and values, and the corral version the objects are of (the chart's
// appVersion, and so the image tag unless the values name one).
type Release struct {
	Name      string
	Namespace string
	Version   string
	// Values override the chart's values.yaml, as `helm --set` does.
	Values map[string]any
}

// Load returns the chart as Helm loads it.
func (c Chart) Load() (*chart.Chart, error) {
	var buffered []*loader.BufferedFile
	err := fs.WalkDir(files, string(c), func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := files.ReadFile(name)
		if err != nil {
			return err
		}
		buffered = append(buffered, &loader.BufferedFile{Name: strings.TrimPrefix(name, string(c)+"/"), Data: data})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("reading chart %s: %w", c, err)
	}
	if len(buffered) == 0 {
		return nil, fmt.Errorf("no chart %s", c)
	}
	ch, err := loader.LoadFiles(buffered)
	if err != nil {
		return nil, fmt.Errorf("loading chart %s: %w", c, err)
	}
	return ch, nil
}

// Render renders the chart's templates for r and returns their objects in
// the order Helm installs them (namespaces and service accounts before
// roles, roles before deployments…).
func (c Chart) Render(r Release) ([]*unstructured.Unstructured, error) {
	ch, err := c.Load()
	if err != nil {
		return nil, err
	}
	if r.Version != "" {
		ch.Metadata.AppVersion = r.Version
	}
	values, err := chartutil.ToRenderValues(ch, r.Values,
		chartutil.ReleaseOptions{Name: r.Name, Namespace: r.Namespace, Revision: 1, IsInstall: true}, chartutil.DefaultCapabilities)
	if err != nil {
		return nil, fmt.Errorf("chart %s: %w", c, err)
	}
	if release, ok := values["Release"].(map[string]any); ok {
		release["Service"] = ManagedBy
	}
	rendered, err := engine.Render(ch, values)
	if err != nil {
		return nil, fmt.Errorf("rendering chart %s: %s", c, trimEngineError(err))
	}
	_, manifests, err := releaseutil.SortManifests(rendered, nil, releaseutil.InstallOrder)
	if err != nil {
		return nil, fmt.Errorf("chart %s: %w", c, err)
	}
	var objs []*unstructured.Unstructured
	for _, m := range manifests {
		parsed, err := Parse([]byte(m.Content))
		if err != nil {
			return nil, fmt.Errorf("chart %s, %s: %w", c, m.Name, err)
		}
		objs = append(objs, parsed...)
	}
	return objs, nil
}

// Parse reads the Kubernetes objects of a YAML stream, skipping empty
// documents.
func Parse(data []byte) ([]*unstructured.Unstructured, error) {
	reader := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	var objs []*unstructured.Unstructured
	for {
		doc, err := reader.Read()
		if errors.Is(err, io.EOF) {
			return objs, nil
		}
		if err != nil {
			return nil, err
		}
		js, err := yaml.YAMLToJSON(doc)
		if err != nil {
			return nil, err
		}
		if s := strings.TrimSpace(string(js)); s == "null" || s == "{}" {
			continue // an empty document
		}
		u := &unstructured.Unstructured{}
		if err := u.UnmarshalJSON(js); err != nil {
			return nil, fmt.Errorf("%w: %.80q", err, doc)
		}
		if u.GetKind() == "" || u.GetAPIVersion() == "" || u.GetName() == "" {
			return nil, fmt.Errorf("an object without apiVersion, kind or name: %.80q", doc)
		}
		objs = append(objs, u)
	}
}

// trimEngineError keeps what a user can act on of a template error: the
// message of `required` and `fail`, without Helm's template position.
func trimEngineError(err error) string {
	msg := err.Error()
	if _, after, ok := strings.Cut(msg, "execution error at ("); ok {
		if _, m, ok := strings.Cut(after, "): "); ok {
			return m
		}
	}
	return msg
}
