package apply

import (
	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"sigs.k8s.io/controller-runtime/pkg/metrics"
)

// driftCorrections counts the changes made on the managed cluster that the
// agent put back.
var driftCorrections = prometheus.NewCounter(prometheus.CounterOpts{
	Name: "corral_work_drift_corrections_total",
	Help: "Objects changed on the managed cluster that the work agent put back as its ManifestWork says.",
})

func init() { metrics.Registry.MustRegister(driftCorrections) }

// DriftCorrections is how many changes the applier has put back.
func DriftCorrections() float64 {
	m := &dto.Metric{}
	if err := driftCorrections.Write(m); err != nil {
		return 0
	}
	return m.GetCounter().GetValue()
}
