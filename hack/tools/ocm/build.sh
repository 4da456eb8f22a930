#!/usr/bin/env bash
# build.sh builds upstream Open Cluster Management's registration, work and
# placement binaries from the Go module proxy into bin/ocm-registration
# (`registration controller` is OCM's hub controller, `registration agent` its
# spoke agent), bin/ocm-work (`work agent`, its work agent) and
# bin/ocm-placement (`placement controller`, its scheduler), bin/ocm-addon
# (`manager`, its hub's addon manager), and the addon framework's
# helloworld example addon into bin/ocm-helloworld
# (`controller` its hub half, `agent` its agent). The interop tests
# (test/interop) run them against corral, both ways round.
#
# Cached by content like ../build.sh, under its own key, so that changing
# this module never rebuilds the Kubernetes binaries and the other way round.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
bin=${1:-$here/../../../bin}
mkdir -p "$bin"
bin=$(cd "$bin" && pwd)

OCM_VERSION=v1.2.0 # keep in step with go.mod (addon-framework too)
# Each binary: bin/<outs[i]>, built from the package pkgs[i].
outs=(ocm-registration ocm-work ocm-placement ocm-addon ocm-helloworld)
pkgs=(
  open-cluster-management.io/ocm/cmd/registration
  open-cluster-management.io/ocm/cmd/work
  open-cluster-management.io/ocm/cmd/placement
  open-cluster-management.io/ocm/cmd/addon
  open-cluster-management.io/addon-framework/cmd/example/helloworld
)
key=ocm-$( (cd "$here" && cat go.mod go.sum tools.go build.sh; go version; go env GOOS GOARCH) | sha256sum | cut -c1-16)
cache_root=${CORRAL_TOOLS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/corral/tools}
cache=$cache_root/$key

have() { # have DIR: every binary is in DIR
  for out in "${outs[@]}"; do [ -x "$1/$out" ] || return 1; done
}

if [ "$(cat "$bin/.ocm-tools-key" 2>/dev/null)" = "$key" ] && have "$bin"; then
  echo "tools: ${outs[*]} up to date in $bin (key $key)"
  exit 0
fi

if ! have "$cache"; then
  echo "tools: building ${outs[*]} ($OCM_VERSION:$(printf " %s" "${pkgs[@]#open-cluster-management.io/}"))"
  echo "tools: a cold build takes about 5 minutes on 2 idle cores (10 CPU-minutes); later runs reuse $cache_root"
  mkdir -p "$cache_root"
  tmp=$(mktemp -d "$cache_root/.build-XXXXXX")
  trap 'rm -rf "$tmp"' EXIT
  start=$SECONDS
  # go.sum is committed, so the build needs neither tidy nor the checksum
  # database (which does not know sigs.k8s.io/about-api's pseudo-version).
  for i in "${!outs[@]}"; do
    (cd "$here" && GOFLAGS=-mod=readonly go build -trimpath -ldflags "-s -w" -o "$tmp/${outs[$i]}" "${pkgs[$i]}")
  done
  rm -rf "$cache" && mv "$tmp" "$cache"
  trap - EXIT
  echo "tools: built ${outs[*]} in $((SECONDS - start))s into $cache"
fi

for out in "${outs[@]}"; do
  ln -f "$cache/$out" "$bin/$out" 2>/dev/null || cp -f "$cache/$out" "$bin/$out"
done
echo "$key" > "$bin/.ocm-tools-key"
echo "tools: ${outs[*]} ready in $bin"
