#!/usr/bin/env bash
# Installs the Debian packages arena needs to build and test. Idempotent and quiet when all
# packages are present; run as root (or with sudo available) on Debian 12.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config git clang-format ccache universal-ctags
  libboost-dev libboost-system-dev libboost-filesystem-dev libyaml-cpp-dev libspdlog-dev libfmt-dev
  catch2 nlohmann-json3-dev libcli11-dev
  stockfish fairy-stockfish pgn-extract
  python3-prometheus-client chromium fonts-wqy-microhei
)
# The browser check drives Debian's chromium through playwright-core from npm: Node.js is needed,
# from Debian unless the machine already has one.
command -v npm >/dev/null || packages+=(nodejs npm)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[[ ${#missing[@]} -eq 0 ]] && exit 0

echo "arena: installing missing Debian packages: ${missing[*]}" >&2
sudo_cmd=()
[[ $(id -u) -ne 0 ]] && sudo_cmd=(sudo)
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
