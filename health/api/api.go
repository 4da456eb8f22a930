package api

// AddonName is the health addon's name.
const AddonName = "health"

// ConditionHealthy is the ManagedCluster condition the hub half sets:
// True when the last report passed every check, False (with a reason
// below and a message naming what failed) when it did not or stopped
// arriving, Unknown before the first report.
const ConditionHealthy = "health.corral.io/Healthy"

// TaintUnhealthy is the taint (effect NoSelect) on a cluster whose
// Healthy condition is False, so placements move away from it; it goes
// when the cluster recovers.
const TaintUnhealthy = "health.corral.io/unhealthy"

// Reasons of ConditionHealthy.
const (
	ReasonHealthy              = "Healthy"
	ReasonNoReport             = "NoReport"
	ReasonReportStale          = "ReportStale"
	ReasonAPIServerNotLive     = "APIServerNotLive"
	ReasonAPIServerNotReady    = "APIServerNotReady"
	ReasonNodesNotReady        = "NodesNotReady"
	ReasonWorkloadsUnavailable = "WorkloadsUnavailable"
)

// ConfigMaps in the cluster namespace on the hub (addons/configmapchannel): the
// agent writes ReportName; the hub half writes ConfigName, the settings
// resolved from the addon's AddOnDeploymentConfig, which the agent watches
// and clusterhealth reads (deleted when the addon is disabled).
const (
	ReportName = "health-report"
	ConfigName = "health-config"
)
