#!/usr/bin/env bash
# build.sh builds the real Kubernetes binaries corral's local control planes
# run on — kube-apiserver, kube-controller-manager, kube-scheduler, etcd and
# kwok, and the kubelet and kube-proxy a real node runs — from the Go module
# proxy, into bin/.
#
# Builds are cached by content: the key is a hash of this module's inputs and
# the Go version, the binaries live in $CORRAL_TOOLS_CACHE/<key>, and bin/ is
# filled from there. A fresh clone on a machine that built the same inputs
# before costs a copy, and nothing rebuilds when nothing changed.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
bin=${1:-$here/../../bin}
mkdir -p "$bin"
bin=$(cd "$bin" && pwd)

KUBE_VERSION=v1.35.4
KWOK_VERSION=v0.8.0
kube_cmds=(kube-apiserver kube-controller-manager kube-scheduler kubelet kube-proxy)
all=("${kube_cmds[@]}" etcd kwok)

key=$( (cd "$here" && cat go.mod go.sum tools.go etcd/main.go build.sh; go version; go env GOOS GOARCH) | sha256sum | cut -c1-16)
cache_root=${CORRAL_TOOLS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/corral/tools}
cache=$cache_root/$key

complete() { # complete DIR: every binary and the kwok stages are in DIR
  local f
  for f in "${all[@]}"; do [ -x "$1/$f" ] || return 1; done
  [ -d "$1/kwok-stages" ]
}

if [ "$(cat "$bin/.tools-key" 2>/dev/null)" = "$key" ] && complete "$bin"; then
  echo "tools: up to date in $bin (key $key)"
  exit 0
fi

if ! complete "$cache"; then
  echo "tools: building ${kube_cmds[*]} ($KUBE_VERSION), etcd and kwok ($KWOK_VERSION)"
  echo "tools: a cold build takes about 8 minutes on 2 cores; later runs reuse $cache_root"
  mkdir -p "$cache_root"
  tmp=$(mktemp -d "$cache_root/.build-XXXXXX")
  trap 'rm -rf "$tmp"' EXIT

  ldflags="-s -w"
  for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    ldflags+=" -X $pkg.gitVersion=$KUBE_VERSION -X $pkg.gitMajor=1 -X $pkg.gitMinor=35"
    ldflags+=" -X $pkg.gitTreeState=clean -X $pkg.buildDate=1970-01-01T00:00:00Z"
  done
  start=$SECONDS
  echo "tools: go build ${kube_cmds[*]} etcd"
  (cd "$here" && go build -trimpath -ldflags "$ldflags" -o "$tmp/" \
    "${kube_cmds[@]/#/k8s.io/kubernetes/cmd/}" ./etcd)

  echo "tools: go install sigs.k8s.io/kwok/cmd/kwok@$KWOK_VERSION"
  (cd "$tmp" && GOBIN="$tmp" GOFLAGS=-mod=mod go install -trimpath -ldflags "-s -w" "sigs.k8s.io/kwok/cmd/kwok@$KWOK_VERSION")
  # kwok refuses to run without stages; they ship in its module.
  kwok_dir=$(cd "$tmp" && go list -m -f '{{.Dir}}' "sigs.k8s.io/kwok@$KWOK_VERSION" 2>/dev/null || true)
  [ -n "$kwok_dir" ] || kwok_dir=$(go env GOMODCACHE)/sigs.k8s.io/kwok@$KWOK_VERSION
  mkdir -p "$tmp/kwok-stages"
  for s in node/fast/node-initialize node/heartbeat/node-heartbeat pod/fast/pod-ready pod/fast/pod-complete pod/fast/pod-delete; do
    cp "$kwok_dir/kustomize/stage/$s.yaml" "$tmp/kwok-stages/"
  done
  chmod -R u+w "$tmp"
  rm -rf "$cache" && mv "$tmp" "$cache"
  trap - EXIT
  echo "tools: built in $((SECONDS - start))s into $cache"
fi

for f in "${all[@]}"; do
  ln -f "$cache/$f" "$bin/$f" 2>/dev/null || cp -f "$cache/$f" "$bin/$f"
done
rm -rf "$bin/kwok-stages" && cp -r "$cache/kwok-stages" "$bin/kwok-stages"

# kubectl: the one on PATH if there is one (envtest and the README use it).
if [ ! -e "$bin/kubectl" ]; then
  if k=$(command -v kubectl); then
    ln -sf "$k" "$bin/kubectl"
  else
    echo "tools: no kubectl on PATH, building it"
    (cd "$here" && go build -trimpath -ldflags "-s -w" -o "$bin/kubectl" k8s.io/kubernetes/cmd/kubectl)
  fi
fi
echo "$key" > "$bin/.tools-key"
echo "tools: ready in $bin"
