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
