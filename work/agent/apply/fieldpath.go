package apply

import (
	"fmt"
	"strconv"
	"strings"

	"k8s.io/client-go/util/jsonpath"
)

// fieldPath is one field of an object: map keys, and list indexes written
// as numbers (a negative index counts from the end).
type fieldPath []string

// parseJSONPath reads an ignoreFields JSON path, in Kubernetes JSONPath
// syntax as kubectl takes it ("{.spec.replicas}", ".spec.replicas",
// ".spec.containers[0].image", ".metadata.annotations.example\.com/x").
// It must name one field: wildcards, slices, filters and several
// expressions are refused, since a field that cannot be named cannot be
// kept as it is.
func parseJSONPath(expr string) (fieldPath, error) {
	text := strings.TrimSpace(expr)
	if !strings.HasPrefix(text, "{") {
		if !strings.HasPrefix(text, ".") && !strings.HasPrefix(text, "$") && !strings.HasPrefix(text, "[") {
			text = "." + text
		}
		text = "{" + text + "}"
	}
	parsed, err := jsonpath.Parse("ignoreFields", text)
	if err != nil {
		return nil, fmt.Errorf("jsonPath %q: %w", expr, err)
	}
	refuse := func(what string) error {
		return fmt.Errorf("jsonPath %q: %s; name one field, as in .spec.replicas or .spec.containers[0].image", expr, what)
	}
	if len(parsed.Root.Nodes) != 1 {
		return nil, refuse("several expressions")
	}
	list, ok := parsed.Root.Nodes[0].(*jsonpath.ListNode)
	if !ok {
		return nil, refuse("not a field")
	}
	var path fieldPath
	for _, n := range list.Nodes {
		switch n := n.(type) {
		case *jsonpath.FieldNode:
			if n.Value == "" {
				return nil, refuse("an empty field")
			}
			path = append(path, n.Value)
		case *jsonpath.WildcardNode:
			return nil, refuse("a wildcard")
		case *jsonpath.ArrayNode:
			start, end := n.Params[0], n.Params[1]
			if !start.Known || !end.Derived || n.Params[2].Known {
				return nil, refuse("a slice or a wildcard")
			}
			path = append(path, strconv.Itoa(start.Value))
		default:
			return nil, refuse(fmt.Sprintf("unsupported %s", n.Type()))
		}
	}
	if len(path) == 0 {
		return nil, refuse("the whole object")
	}
	return path, nil
}

// parseJSONPointer reads an RFC 6901 JSON pointer ("/spec/replicas",
// "/metadata/annotations/example.com~1x").
func parseJSONPointer(ptr string) (fieldPath, error) {
	if !strings.HasPrefix(ptr, "/") || ptr == "/" {
		return nil, fmt.Errorf("jsonPointer %q: it must name a field, as in /spec/replicas", ptr)
	}
	tokens := strings.Split(ptr[1:], "/")
	for i, t := range tokens {
		tokens[i] = pointerUnescaper.Replace(t)
	}
	return tokens, nil
}

// pointerUnescaper undoes a JSON pointer token's escapes.
var pointerUnescaper = strings.NewReplacer("~1", "/", "~0", "~")

// get is the value at path in obj, and whether it is there.
func (p fieldPath) get(obj map[string]any) (any, bool) {
	var cur any = obj
	for _, step := range p {
		next, ok := child(cur, step)
		if !ok {
			return nil, false
		}
		cur = next
	}
	return cur, true
}

// set puts v at path in obj, making the maps on the way that are missing.
// A list index beyond the list's end, or a field of something that is not
// an object, is left unset.
func (p fieldPath) set(obj map[string]any, v any) {
	var cur any = obj
	for i, step := range p {
		last := i == len(p)-1
		switch c := cur.(type) {
		case map[string]any:
			if last {
				c[step] = v
				return
			}
			if _, ok := c[step]; !ok {
				c[step] = map[string]any{}
			}
			cur = c[step]
		case []any:
			i, ok := index(c, step)
			if !ok {
				return
			}
			if last {
				c[i] = v
				return
			}
			cur = c[i]
		default:
			return
		}
	}
}

// remove deletes the field at path from obj, when it is an object's
// field: list items are not removed, which would move the others.
func (p fieldPath) remove(obj map[string]any) {
	parent, ok := p[:len(p)-1].get(obj)
	if m, isMap := parent.(map[string]any); ok && isMap {
		delete(m, p[len(p)-1])
	}
}

func child(cur any, step string) (any, bool) {
	switch c := cur.(type) {
	case map[string]any:
		v, ok := c[step]
		return v, ok
	case []any:
		i, ok := index(c, step)
		if !ok {
			return nil, false
		}
		return c[i], true
	}
	return nil, false
}

// index is step as an index of list, counting a negative one from its end.
func index(list []any, step string) (int, bool) {
	i, err := strconv.Atoi(step)
	if err != nil {
		return 0, false
	}
	if i < 0 {
		i += len(list)
	}
	return i, i >= 0 && i < len(list)
}
