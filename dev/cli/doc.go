// Package cli holds the `corral dev` verbs: up, down and status of a local
// fleet, and the hidden serve verb that is the fleet's supervisor process.
package cli
