#!/usr/bin/env bash
# Sourced by the test scripts: exports ARENA_TESTDATA, the conformance data of
# shared/testdata (perft counts, reference logits, tokenizer vectors, test models). Looked for,
# in order: ARENA_TESTDATA as already set; shared/testdata beside this checkout; beside the
# repository this checkout was cloned from (a scratch clone, e.g. `git clone . "$(mktemp -d)"`).
# Tests that need the data fail when it is found nowhere; this says so first.
arena_find_testdata() {
  local root=$1
  [[ -n "${ARENA_TESTDATA:-}" ]] && return 0
  local candidates=("$root/../shared/testdata") origin
  origin=$(git -C "$root" config --get remote.origin.url 2>/dev/null || true)
  [[ -n "$origin" && -d "$origin" ]] && candidates+=("$origin/../shared/testdata")
  local dir
  for dir in "${candidates[@]}"; do
    if [[ -d "$dir" ]]; then
      ARENA_TESTDATA=$(cd "$dir" && pwd)
      export ARENA_TESTDATA
      return 0
    fi
  done
  echo "warning: test data not found (looked in: ${candidates[*]}); set ARENA_TESTDATA to the" \
    "shared/testdata folder, or the tests that need it fail" >&2
}
