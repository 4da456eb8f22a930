//go:build !linux

package textpages

// Trim does nothing here: only Linux maps pages around a fault.
func Trim() error { return nil }
