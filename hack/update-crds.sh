#!/usr/bin/env bash
# update-crds.sh copies the CustomResourceDefinitions a corral hub serves
# from the pinned open-cluster-management.io/api module into the hub
# chart's crds/ (Helm installs them from there; package crds, beside them,
# reads them for corral init and the suites). Where two API versions ship a
# CRD of the same name, the newer version's file (which serves both
# versions) wins. Package crds' test fails when the copy and the module
# disagree.
set -euo pipefail
cd "$(dirname "$0")/.."
api=$(go list -m -f '{{.Dir}}' open-cluster-management.io/api)
out=deploy/charts/corral-hub/crds
rm -f "$out"/*.crd.yaml
for group in cluster addon work; do
  for f in $(ls "$api/$group"/*/*.crd.yaml | sort); do
    install -m 0644 "$f" "$out/$(basename "$f")"
  done
done
echo "$out: $(ls "$out"/*.crd.yaml | wc -l) CRDs from $api"
