#!/usr/bin/env bash
# Formats every C++ and CUDA source with the repository's .clang-format.
# Usage: scripts/format.sh [--check]   (--check lists unformatted files and fails)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
mapfile -t files < <(git ls-files '*.h' '*.cpp' '*.cu' '*.cuh' '*.h.in')
[[ ${#files[@]} -eq 0 ]] && exit 0
if [[ "${1:-}" == --check ]]; then
  bad=()
  for f in "${files[@]}"; do
    clang-format --style=file "$f" | cmp -s - "$f" || bad+=("$f")
  done
  if [[ ${#bad[@]} -gt 0 ]]; then
    printf 'not formatted (run scripts/format.sh): %s\n' "${bad[@]}" >&2
    exit 1
  fi
else
  clang-format --style=file -i "${files[@]}"
fi
