// Package hub is `corral hub`, the hub's run mode: Options (its flags, and
// what an in-process caller sets beside them) and Run, which starts in one
// controller-runtime manager the registration core's controllers
// (registration/hub), the addon manager with the selected built-in addons'
// hub halves (addons/manager), and the admission webhooks
// (registration/webhook). The binary, the dev fleet and the integration
// suites all start the hub through it, so they run the same wiring.
package hub
