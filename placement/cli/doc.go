// Package cli holds `corral placement`: explain, which runs the placement
// scheduler (placement/hub/scheduler) over what the hub holds now and
// prints, for every cluster, which filter dropped it or what each
// prioritizer scored it and whether it was selected; with --what-if, for
// an edited Placement from a file, without writing anything, and with the
// clusters it would gain and lose. It only reads the hub.
package cli
