#!/usr/bin/env bash
# update-crds.sh copies the CustomResourceDefinitions a corral hub serves
# from the pinned open-cluster-management.io/api module into deploy/crds,
# and links each from the hub chart's crds/ (Helm installs them from there).
# Where two API versions ship a CRD of the same name, the newer version's
# file (which serves both versions) wins. deploy/crds' test fails when the
# copy and the module disagree.
set -euo pipefail
cd "$(dirname "$0")/.."
api=$(go list -m -f '{{.Dir}}' open-cluster-management.io/api)
out=deploy/crds
rm -f "$out"/*.crd.yaml
for group in cluster addon work; do
  for f in $(ls "$api/$group"/*/*.crd.yaml | sort); do
    install -m 0644 "$f" "$out/$(basename "$f")"
  done
done
chart=deploy/charts/corral-hub/crds
mkdir -p "$chart"
rm -f "$chart"/*.crd.yaml
for f in "$out"/*.crd.yaml; do
  ln -s "../../../crds/$(basename "$f")" "$chart/$(basename "$f")"
done
echo "deploy/crds: $(ls "$out"/*.crd.yaml | wc -l) CRDs from $api"
