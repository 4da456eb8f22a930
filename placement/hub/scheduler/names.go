package scheduler

import "slices"

// Names is a set of cluster names kept as a sorted slice: the clusters a
// placement's decisions hold. A hub keeps one per placement, and for the
// handful of names a placement holds a slice is a fraction of a map's
// size.
type Names []string

// NewNames is the set of the non-empty names, sorted, each once. It may
// reorder names.
func NewNames(names ...string) Names {
	names = slices.DeleteFunc(names, func(n string) bool { return n == "" })
	slices.Sort(names)
	return slices.Clip(slices.Compact(names))
}

// Has says whether name is in the set.
func (n Names) Has(name string) bool {
	_, ok := slices.BinarySearch(n, name)
	return ok
}
