package api

import (
	"errors"
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"
)

// VarCollectInterval is the AddOnDeploymentConfig customizedVariable that
// says how often the agent collects (a Go duration, MinCollectInterval to
// MaxCollectInterval). It is the only variable the addon reads; others are
// left alone, as health does, since one AddOnDeploymentConfig may serve
// several addons.
const VarCollectInterval = "collectInterval"

// The collection interval: by default 30s, which is also the least time
// between two reports, so a fleet of a thousand quiet clusters writes
// nothing and a thousand busy ones at most 33 reports a second. Each round
// lists the cluster's nodes and ClusterClaims, so a shorter interval than
// MinCollectInterval loads the managed API server for nothing; a longer
// one than MaxCollectInterval leaves the hub's properties too far behind.
const (
	DefaultCollectInterval = 30 * time.Second
	MinCollectInterval     = 5 * time.Second
	MaxCollectInterval     = time.Hour
)

// Settings are the properties addon's settings for one cluster.
type Settings struct {
	// CollectInterval is how often the agent collects, and the least time
	// between two reports.
	CollectInterval metav1.Duration `json:"collectInterval"`
}

// DefaultSettings are the settings with no AddOnDeploymentConfig.
func DefaultSettings() Settings {
	return Settings{CollectInterval: metav1.Duration{Duration: DefaultCollectInterval}}
}

// Describe says what s does, for the addon's ConfigValid condition.
func (s Settings) Describe() string {
	return "collecting every " + s.CollectInterval.Duration.String()
}

// Validate says what is wrong with settings read back from ConfigName:
// the agent follows only settings ParseSettings would have given.
func (s Settings) Validate() error {
	return checkInterval(s.CollectInterval.Duration)
}

// ParseSettings reads the properties addon's variables; one error line
// per bad variable, each saying what to give instead.
func ParseSettings(vars []addonv1alpha1.CustomizedVariable) (Settings, error) {
	s := DefaultSettings()
	var errs []error
	for _, v := range vars {
		if v.Name != VarCollectInterval {
			continue // another addon's
		}
		d, err := time.ParseDuration(v.Value)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s %q is not a duration: give one such as 30s or 5m", v.Name, v.Value))
			continue
		}
		if err := checkInterval(d); err != nil {
			errs = append(errs, err)
			continue
		}
		s.CollectInterval.Duration = d
	}
	return s, errors.Join(errs...)
}

// checkInterval says why d cannot be the collection interval.
func checkInterval(d time.Duration) error {
	switch {
	case d < MinCollectInterval:
		return fmt.Errorf("%s %s is shorter than %s, which would load the cluster's API server for nothing: give %s to %s", VarCollectInterval, d, MinCollectInterval, MinCollectInterval, MaxCollectInterval)
	case d > MaxCollectInterval:
		return fmt.Errorf("%s %s is longer than %s, which would leave the hub's properties too far behind: give %s to %s", VarCollectInterval, d, MaxCollectInterval, MinCollectInterval, MaxCollectInterval)
	}
	return nil
}
