// Package api is what the placement addon promises others: the
// AddOnPlacementScore its agent publishes in each cluster namespace, which
// a Placement's AddOn prioritizers read (resourceName ScoreName, scoreName
// ScoreCPU or ScoreMemory) and the propagation addon's dynamic replica
// weights too. Each score runs from −100 (nothing free) to 100 (the
// agent's CPUForMaxScore or MemoryForMaxScore free), linearly.
package api

const (
	// ScoreName is the AddOnPlacementScore the agent publishes in its
	// cluster namespace.
	ScoreName = "resource-usage"
	// ScoreCPU is the score of the CPU the cluster can still take.
	ScoreCPU = "cpuAvailable"
	// ScoreMemory is the score of the memory the cluster can still take.
	ScoreMemory = "memAvailable"
)
