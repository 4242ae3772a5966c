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
  # Quiet and never a question: -qq, no pty progress from dpkg, and the
  # noninteractive front end passed through sudo (which drops the caller's
  # environment).
  export DEBIAN_FRONTEND=noninteractive
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get -qq update
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get -qq -y -o Dpkg::Use-Pty=0 install "${missing[@]}" >/dev/null
fi
