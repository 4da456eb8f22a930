package override

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// podSpecPaths are where each kind with pods holds its pod spec.
var podSpecPaths = map[schema.GroupKind][]string{
	{Kind: "Pod"}:                              {"spec"},
	{Group: "apps", Kind: "Deployment"}:        {"spec", "template", "spec"},
	{Group: "apps", Kind: "StatefulSet"}:       {"spec", "template", "spec"},
	{Group: "apps", Kind: "DaemonSet"}:         {"spec", "template", "spec"},
	{Group: "apps", Kind: "ReplicaSet"}:        {"spec", "template", "spec"},
	{Group: "batch", Kind: "Job"}:              {"spec", "template", "spec"},
	{Group: "batch", Kind: "CronJob"}:          {"spec", "jobTemplate", "spec", "template", "spec"},
	{Group: "", Kind: "ReplicationController"}: {"spec", "template", "spec"},
}

// containerLists are the pod spec's lists of containers an override
// changes.
var containerLists = []string{"initContainers", "containers"}

// eachContainer calls change on every container of obj's pod spec named
// name (every container when name is empty); a kind without pods, or no
// container of that name, is an error.
func eachContainer(obj map[string]any, name string, change func(c map[string]any) error) error {
	u := unstructured.Unstructured{Object: obj}
	gk := u.GroupVersionKind().GroupKind()
	path, ok := podSpecPaths[gk]
	if !ok {
		return fmt.Errorf("a %s has no pod template: change it with jsonPatch", gk.Kind)
	}
	found := false
	for _, list := range containerLists {
		listPath := append(path[:len(path):len(path)], list)
		containers, _, err := unstructured.NestedSlice(obj, listPath...)
		if err != nil {
			return err
		}
		for i, c := range containers {
			cm, ok := c.(map[string]any)
			if !ok || (name != "" && cm["name"] != name) {
				continue
			}
			found = true
			if err := change(cm); err != nil {
				return fmt.Errorf("container %v: %w", cm["name"], err)
			}
			containers[i] = cm
		}
		if containers != nil {
			if err := unstructured.SetNestedSlice(obj, containers, listPath...); err != nil {
				return err
			}
		}
	}
	if !found && name != "" {
		return fmt.Errorf("the %s has no container %s", gk.Kind, name)
	}
	return nil
}

func (r *Rule) images(obj map[string]any, vars variables) error {
	for _, o := range r.Spec.Images {
		registry, err := vars.expand(o.Registry)
		if err != nil {
			return err
		}
		repository, err := vars.expand(o.Repository)
		if err != nil {
			return err
		}
		tag, err := vars.expand(o.Tag)
		if err != nil {
			return err
		}
		err = eachContainer(obj, o.Container, func(c map[string]any) error {
			image, _ := c["image"].(string)
			ref, err := parseImage(image)
			if err != nil {
				return err
			}
			if registry != "" {
				ref.registry = registry
			}
			if repository != "" {
				ref.repository = repository
			}
			if tag != "" {
				ref.tag, ref.digest = tag, ""
			}
			c["image"] = ref.String()
			return nil
		})
		if err != nil {
			return fmt.Errorf("images: %w", err)
		}
	}
	return nil
}

func (r *Rule) containers(obj map[string]any, vars variables) error {
	for _, o := range r.Spec.Containers {
		err := eachContainer(obj, o.Container, func(c map[string]any) error {
			for field, values := range map[string][]string{"command": o.Command, "args": o.Args} {
				if values == nil {
					continue
				}
				out := make([]any, len(values))
				for i, v := range values {
					expanded, err := vars.expand(v)
					if err != nil {
						return err
					}
					out[i] = expanded
				}
				c[field] = out
			}
			return nil
		})
		if err != nil {
			return fmt.Errorf("containers: %w", err)
		}
	}
	return nil
}

// imageRef is an image reference, [registry/]repository[:tag][@digest].
type imageRef struct{ registry, repository, tag, digest string }

// parseImage splits an image reference: its first path component is a
// registry when it has a dot or a port, or is localhost, as the
// container runtimes read it.
func parseImage(s string) (imageRef, error) {
	var r imageRef
	rest := s
	if i := strings.Index(rest, "@"); i >= 0 {
		rest, r.digest = rest[:i], rest[i+1:]
	}
	if i := strings.LastIndex(rest, ":"); i >= 0 && !strings.Contains(rest[i+1:], "/") {
		rest, r.tag = rest[:i], rest[i+1:]
	}
	if i := strings.Index(rest, "/"); i >= 0 {
		if first := rest[:i]; strings.ContainsAny(first, ".:") || first == "localhost" {
			r.registry, rest = first, rest[i+1:]
		}
	}
	r.repository = rest
	if r.repository == "" || strings.ContainsAny(s, " \t") {
		return r, fmt.Errorf("image %q is not an image reference", s)
	}
	return r, nil
}

func (r imageRef) String() string {
	var b strings.Builder
	if r.registry != "" {
		b.WriteString(r.registry + "/")
	}
	b.WriteString(r.repository)
	if r.tag != "" {
		b.WriteString(":" + r.tag)
	}
	if r.digest != "" {
		b.WriteString("@" + r.digest)
	}
	return b.String()
}
