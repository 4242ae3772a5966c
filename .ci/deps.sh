#!/usr/bin/env bash
# Install the Debian packages ggp needs, if any is missing (idempotent).
set -euo pipefail
pkgs=(build-essential cmake flex bison pkg-config libcurl4-openssl-dev libcmocka-dev
      libmicrohttpd-dev clang)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  SUDO=; [ "$(id -u)" -ne 0 ] && SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}"
fi
