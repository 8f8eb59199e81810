#!/usr/bin/env bash
# Installs what is missing, builds, and runs the test suite through CTest.
# Usage: scripts/test.sh [--slow] [ctest options...]
#   default: labels `unit` and `cuda` (CUDA tests report themselves skipped without a device)
#   --slow:  also the tests labelled `slow` (deep perft, long conformance runs)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build="$root/build"

labels='unit|cuda'
if [[ "${1:-}" == --slow ]]; then
  labels='unit|cuda|slow'
  shift
fi

source "$root/scripts/testdata.sh"
arena_find_testdata "$root"
bash "$root/scripts/build.sh" "$build"
ctest --test-dir "$build" --label-regex "$labels" --output-on-failure --parallel "$(nproc)" "$@"
