#!/usr/bin/env bash
# build.sh builds upstream Open Cluster Management's registration binary
# (`registration controller` is OCM's hub controller, `registration agent` its
# spoke agent) from the Go module proxy into bin/ocm-registration. The interop
# tests (test/interop) run it against corral, both ways round.
#
# Cached by content like ../build.sh, under its own key, so that changing
# this module never rebuilds the Kubernetes binaries and the other way round.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
bin=${1:-$here/../../../bin}
mkdir -p "$bin"
bin=$(cd "$bin" && pwd)

OCM_VERSION=v1.2.0 # keep in step with go.mod
out=ocm-registration
key=ocm-$( (cd "$here" && cat go.mod go.sum tools.go build.sh; go version; go env GOOS GOARCH) | sha256sum | cut -c1-16)
cache_root=${CORRAL_TOOLS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/corral/tools}
cache=$cache_root/$key

if [ "$(cat "$bin/.ocm-tools-key" 2>/dev/null)" = "$key" ] && [ -x "$bin/$out" ]; then
  echo "tools: $out up to date in $bin (key $key)"
  exit 0
fi

if [ ! -x "$cache/$out" ]; then
  echo "tools: building $out (open-cluster-management.io/ocm $OCM_VERSION cmd/registration)"
  echo "tools: a cold build takes about 5 minutes on 2 idle cores (10 CPU-minutes); later runs reuse $cache_root"
  mkdir -p "$cache_root"
  tmp=$(mktemp -d "$cache_root/.build-XXXXXX")
  trap 'rm -rf "$tmp"' EXIT
  start=$SECONDS
  # go.sum is committed, so the build needs neither tidy nor the checksum
  # database (which does not know sigs.k8s.io/about-api's pseudo-version).
  (cd "$here" && GOFLAGS=-mod=readonly go build -trimpath -ldflags "-s -w" -o "$tmp/$out" open-cluster-management.io/ocm/cmd/registration)
  rm -rf "$cache" && mv "$tmp" "$cache"
  trap - EXIT
  echo "tools: built $out in $((SECONDS - start))s into $cache"
fi

ln -f "$cache/$out" "$bin/$out" 2>/dev/null || cp -f "$cache/$out" "$bin/$out"
echo "$key" > "$bin/.ocm-tools-key"
echo "tools: $out ready in $bin"
