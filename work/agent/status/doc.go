// Package status reads a ManifestWork's status feedback from the objects
// it applied: the WellKnownStatus fields of common kinds (Deployments,
// Jobs, DaemonSets, StatefulSets, Pods) and JSONPaths, with a structured
// value returned as raw JSON (capped at MaxRawSize bytes) when the
// RawFeedbackJsonString feature gate is on. It owns no controller.
package status
