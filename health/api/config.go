package api

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"
)

// Names of the AddOnDeploymentConfig customizedVariables the health addon
// reads; other variables are left for other addons.
const (
	// VarProbeInterval is how often the agent probes (a Go duration).
	VarProbeInterval = "probeInterval"
	// VarStaleAfter is how old the last report may be before the hub
	// counts the cluster unhealthy (a Go duration, longer than the
	// probe interval).
	VarStaleAfter = "staleAfter"
	// VarMinReadyNodeShare is the least share of Ready nodes (0 to 1) of
	// a healthy cluster.
	VarMinReadyNodeShare = "minReadyNodeShare"
	// VarWorkloads lists workloads that must be Available:
	// Kind/namespace/name, comma-separated; Kind is Deployment or
	// DaemonSet.
	VarWorkloads = "workloads"
)

// Defaults.
const (
	DefaultProbeInterval     = 30 * time.Second
	DefaultMinReadyNodeShare = 0.5
	// DefaultStaleIntervals is staleAfter's default, in probe intervals.
	DefaultStaleIntervals = 3
)

// Workload kinds that may be listed.
const (
	KindDeployment = "Deployment"
	KindDaemonSet  = "DaemonSet"
)

// WorkloadRef names a workload on the managed cluster.
type WorkloadRef struct {
	Kind      string `json:"kind"`
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
}

func (w WorkloadRef) String() string { return w.Kind + "/" + w.Namespace + "/" + w.Name }

// Duration is a time.Duration that encodes as a Go duration string.
type Duration struct{ time.Duration }

// MarshalJSON encodes d as "30s".
func (d Duration) MarshalJSON() ([]byte, error) { return []byte(strconv.Quote(d.String())), nil }

// UnmarshalJSON decodes "30s".
func (d *Duration) UnmarshalJSON(b []byte) error {
	s, err := strconv.Unquote(string(b))
	if err != nil {
		return err
	}
	d.Duration, err = time.ParseDuration(s)
	return err
}

// Settings are the health addon's settings for one cluster: what the hub
// half resolves from the addon's AddOnDeploymentConfig and writes into
// ConfigName for the agent, and judges reports by.
type Settings struct {
	ProbeInterval     Duration      `json:"probeInterval"`
	StaleAfter        Duration      `json:"staleAfter"`
	MinReadyNodeShare float64       `json:"minReadyNodeShare"`
	Workloads         []WorkloadRef `json:"workloads,omitempty"`
}

// DefaultSettings are the settings with no AddOnDeploymentConfig.
func DefaultSettings() Settings {
	return Settings{
		ProbeInterval:     Duration{DefaultProbeInterval},
		StaleAfter:        Duration{DefaultStaleIntervals * DefaultProbeInterval},
		MinReadyNodeShare: DefaultMinReadyNodeShare,
	}
}

// Describe says what s does, for the addon's ConfigValid condition.
func (s Settings) Describe() string {
	return fmt.Sprintf("probing every %s, stale after %s, at least %.0f%% of nodes Ready, %d workloads",
		s.ProbeInterval, s.StaleAfter, 100*s.MinReadyNodeShare, len(s.Workloads))
}

// ParseSettings reads the health addon's variables; one error line per
// bad variable, each saying what to give instead.
func ParseSettings(vars []addonv1alpha1.CustomizedVariable) (Settings, error) {
	s := DefaultSettings()
	staleSet := false
	var errs []error
	for _, v := range vars {
		switch v.Name {
		case VarProbeInterval:
			d, err := time.ParseDuration(v.Value)
			if err != nil || d <= 0 {
				errs = append(errs, notPositive(v.Name, v.Value, DefaultProbeInterval))
				continue
			}
			s.ProbeInterval.Duration = d
		case VarStaleAfter:
			d, err := time.ParseDuration(v.Value)
			if err != nil || d <= 0 {
				errs = append(errs, notPositive(v.Name, v.Value, DefaultStaleIntervals*DefaultProbeInterval))
				continue
			}
			s.StaleAfter.Duration, staleSet = d, true
		case VarMinReadyNodeShare:
			f, err := strconv.ParseFloat(v.Value, 64)
			if err != nil || !isShare(f) {
				errs = append(errs, notShare(v.Name, v.Value))
				continue
			}
			s.MinReadyNodeShare = f
		case VarWorkloads:
			w, err := ParseWorkloads(v.Value)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			s.Workloads = w
		}
	}
	if !staleSet {
		s.StaleAfter.Duration = DefaultStaleIntervals * s.ProbeInterval.Duration
	}
	return s, errors.Join(append(errs, s.checkStale())...)
}

// Validate says what is wrong with settings read back from ConfigName:
// the agent follows only settings ParseSettings could have given — it
// waits the probe interval and bounds its probes by it, writes a
// heartbeat every third of staleAfter and probes the listed workloads.
func (s Settings) Validate() error {
	var errs []error
	if s.ProbeInterval.Duration <= 0 {
		errs = append(errs, notPositive(VarProbeInterval, s.ProbeInterval.String(), DefaultProbeInterval))
	}
	if !isShare(s.MinReadyNodeShare) {
		errs = append(errs, notShare(VarMinReadyNodeShare, strconv.FormatFloat(s.MinReadyNodeShare, 'g', -1, 64)))
	}
	for _, w := range s.Workloads {
		errs = append(errs, w.check())
	}
	return errors.Join(append(errs, s.checkStale())...)
}

// notPositive says variable name's value is not a positive duration,
// with an example of one.
func notPositive(name, value string, example time.Duration) error {
	return fmt.Errorf("%s %q is not a positive duration: give one such as %s", name, value, example)
}

// isShare says whether f is a share of nodes, from 0 to 1.
func isShare(f float64) bool { return f >= 0 && f <= 1 }

// notShare says variable name's value is not a share.
func notShare(name, value string) error {
	return fmt.Errorf("%s %q is not a share: give a number from 0 to 1, such as 0.8", name, value)
}

// checkStale says why s's staleAfter does not fit its probe interval.
func (s Settings) checkStale() error {
	if s.StaleAfter.Duration <= s.ProbeInterval.Duration {
		return fmt.Errorf("%s %s is not longer than %s %s: a report would be stale before the next one is due", VarStaleAfter, s.StaleAfter, VarProbeInterval, s.ProbeInterval)
	}
	return nil
}

// ParseWorkloads reads Kind/namespace/name,… .
func ParseWorkloads(value string) ([]WorkloadRef, error) {
	var out []WorkloadRef
	for _, item := range strings.Split(value, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		parts := strings.Split(item, "/")
		if len(parts) != 3 {
			return nil, notAWorkload(item)
		}
		w := WorkloadRef{Kind: parts[0], Namespace: parts[1], Name: parts[2]}
		if err := w.check(); err != nil {
			return nil, err
		}
		out = append(out, w)
	}
	return out, nil
}

// check says why w cannot be probed.
func (w WorkloadRef) check() error {
	switch {
	case w.Namespace == "" || w.Name == "":
		return notAWorkload(w.String())
	case w.Kind != KindDeployment && w.Kind != KindDaemonSet:
		return fmt.Errorf("%s: %q has kind %q, which is not supported: use %s or %s", VarWorkloads, w, w.Kind, KindDeployment, KindDaemonSet)
	}
	return nil
}

func notAWorkload(item string) error {
	return fmt.Errorf("%s: %q is not Kind/namespace/name: give, for example, Deployment/kube-system/coredns", VarWorkloads, item)
}
