// Package status reads a ManifestWork's status feedback from the objects
// it applied: the WellKnownStatus fields of common kinds (Deployments,
// Jobs, DaemonSets, StatefulSets, Pods) and JSONPaths, with a structured
// value returned as raw JSON (capped at MaxRawSize bytes) when the
// RawFeedbackJsonString feature gate is on. It also evaluates a manifest's
// conditionRules (Rules): CEL expressions over the object, and the
// WellKnownConditions (Complete) of Jobs and Pods. It owns no controller.
package status
