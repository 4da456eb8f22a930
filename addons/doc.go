// Package addons is corral's addon platform: the addon-framework manager on
// the hub, the addon host in the agent that runs the built-in addon agents
// in-process, and helpers for third-party addon authors.
package addons
