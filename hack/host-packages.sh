#!/usr/bin/env bash
# host-packages.sh installs, with apt-get, what the local fleet's real nodes
# run on and this machine lacks: containerd, runc and the CNI plugins (plus
# iproute2, nftables and iptables, which the kubelet and kube-proxy call).
# It does nothing when all are there, and says what it would need when it
# cannot install (not root, no apt-get).
set -euo pipefail

need=()
have() { command -v "$1" >/dev/null 2>&1; }
have containerd || need+=(containerd)
have runc || need+=(runc)
{ [ -x /usr/lib/cni/bridge ] || [ -x /opt/cni/bin/bridge ]; } || need+=(containernetworking-plugins)
have ip || need+=(iproute2)
have nft || need+=(nftables)
have iptables || need+=(iptables)
have nsenter || need+=(util-linux)

if [ ${#need[@]} -eq 0 ]; then
  echo "host-packages: containerd, runc and the CNI plugins are installed"
  exit 0
fi
if [ "$(id -u)" != 0 ] || ! have apt-get; then
  echo "host-packages: the real nodes need ${need[*]}: install them (apt-get install ${need[*]}) as root" >&2
  exit 1
fi
echo "host-packages: installing ${need[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get install -y --no-install-recommends "${need[@]}" >/dev/null || {
  apt-get update >/dev/null && apt-get install -y --no-install-recommends "${need[@]}" >/dev/null
}
# The package may start a containerd of its own where an init system runs;
# the fleet's nodes each run their own and need no other.
echo "host-packages: installed ${need[*]}"
