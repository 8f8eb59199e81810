#!/usr/bin/env bash
# Installs missing packages, configures (once) and builds arena incrementally.
# Usage: scripts/build.sh [BUILD_DIR] [extra cmake -D options...]
# Environment: CI=true turns warnings into errors.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${1:-"$root/build"}
shift || true

bash "$root/scripts/deps.sh"

options=(-G Ninja -DCMAKE_BUILD_TYPE="${ARENA_BUILD_TYPE:-Release}")
# ccache, with its cache outside the clone, so a fresh clone (CI) rebuilds only what changed.
# CCACHE_BASEDIR makes paths relative, so clones in different folders share their entries.
if command -v ccache >/dev/null; then
  options+=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_CUDA_COMPILER_LAUNCHER=ccache)
  export CCACHE_DIR=${CCACHE_DIR:-/var/cache/arena-ccache} CCACHE_BASEDIR=$root CCACHE_NOHASHDIR=true
  export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-5G}
fi
[[ "${CI:-}" == true ]] && options+=(-DARENA_WERROR=ON)
options+=("$@")

# Configure when there is no build yet or the options changed; otherwise ninja re-runs CMake
# by itself when a CMakeLists.txt changes.
stamp="$build/.arena-configure-options"
if [[ ! -f "$build/build.ninja" || "$(cat "$stamp" 2>/dev/null)" != "${options[*]}" ]]; then
  cmake -S "$root" -B "$build" "${options[@]}" >/dev/null
  echo "${options[*]}" >"$stamp"
fi
cmake --build "$build" --parallel "$(nproc)"
