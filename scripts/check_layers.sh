#!/usr/bin/env bash
# scripts/check_layers.sh: checks every project #include of the layered code against the layer
# table of ../shared/ARCHITECTURE.md, so a wrong include fails CI even where the build's include
# trees (cmake/layer.cmake) cannot catch it.
#
#   base         -> base                           (every layer below may also include base)
#   games        -> games
#   kernels      -> kernels
#   engine       -> engine, kernels                (not the developer tools)
#   engine_tools -> engine_tools, engine, kernels  (engine/tools/: synth, planner, eval cases, ...)
#   agents       -> agents, games, engine API      (engine/api.h and the headers it re-exports)
#   arena        -> arena, agents, games, engine API
#   arena/cli    -> the same, arena/cli and engine_tools (engine/tools/ headers); of the engine,
#                   arena/ (arena/cli included) includes nothing else
#   tests, bench, fuzz -> anything (not checked)
#
# The engine API headers are read from engine/CMakeLists.txt (one list for the build and this
# check); the tools are every file under engine/tools/. A tool header that arena/cli includes
# exposes API types only: the build checks that part, as arena_cli's include tree holds the engine
# API and engine/tools/ alone. Prints each offending include as file:line and exits 1; 0 when clean.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

# engine/CMakeLists.txt: the ENGINE_API_HEADERS list.
api_headers=" $(sed -n '/^set(ENGINE_API_HEADERS/,/)/p' engine/CMakeLists.txt | grep -o 'engine/[A-Za-z0-9_/]*\.h' | tr '\n' ' ')"
if [[ $api_headers == " " ]]; then
  echo "check_layers: cannot read the engine API headers from engine/CMakeLists.txt" >&2
  exit 2
fi

# Sets `layer` to the layer a project path (a source or an included header) belongs to; "" for
# other paths. The engine API headers are "engine_api" (part of the engine layer).
layer_of() {
  local path=$1
  layer=""
  case $path in
    base/*) layer=base ;;
    games/*) layer=games ;;
    kernels/*) layer=kernels ;;
    engine/tools/*) layer=engine_tools ;;
    engine/*)
      layer=engine
      if [[ $api_headers == *" $path "* ]]; then layer=engine_api; fi
      ;;
    agents/*) layer=agents ;;
    arena/cli/* | arena/main.cpp) layer=arena_cli ;;
    arena/*) layer=arena ;;
  esac
}

# What each layer may include.
declare -A allowed=(
  [base]="base"
  [games]="games"
  [kernels]="kernels"
  [engine]="engine engine_api kernels"
  [engine_api]="engine engine_api kernels"
  [engine_tools]="engine_tools engine engine_api kernels"
  [agents]="agents games engine_api"
  [arena]="arena agents games engine_api"
  [arena_cli]="arena_cli arena agents games engine_api engine_tools"
)

violations=0
while IFS= read -r hit; do
  file=${hit%%:*}
  rest=${hit#*:}
  line=${rest%%:*}
  target=${rest#*\"}
  target=${target%%\"*}
  layer_of "$file"
  from=$layer
  [[ -z $from ]] && continue
  if [[ $target != */* || $target == ../* || $target == ./* ]]; then
    echo "$file:$line: include \"$target\": name project headers by their path from the repository root"
    violations=$((violations + 1))
    continue
  fi
  layer_of "$target"
  to=$layer
  [[ -z $to ]] && continue  # not a project header (e.g. a library's quoted include)
  # base, the bottom layer, is open to every layer.
  if [[ $to != base && " ${allowed[$from]} " != *" $to "* ]]; then
    what=$to
    [[ $to == engine ]] && what="an engine internal: not in ENGINE_API_HEADERS nor under engine/tools/"
    echo "$file:$line: $from may not include \"$target\" ($what); it may include: ${allowed[$from]}"
    violations=$((violations + 1))
  fi
done < <(grep -rnE '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' --include='*.h' --include='*.cpp' \
  --include='*.cu' --include='*.cuh' base games kernels engine agents arena || true)

if ((violations > 0)); then
  echo "check_layers: $violations include(s) break the layer table (see scripts/check_layers.sh)" >&2
  exit 1
fi
echo "check_layers: every include of base, games, kernels, engine, agents and arena follows the layer table"
