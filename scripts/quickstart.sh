#!/usr/bin/env bash
# The main job: installs what is missing, builds, and runs the quickstart tournament
# (configs/quickstart.yaml: LLM agents with two prompts, the built-in search, random moves and
# Stockfish, in chess and janggi). Extra arguments go to `arena run` (e.g. --web-port 8080).
#
# Its LLM agents run on the project's default model. Until an embedded model ships, that is a
# small random-weight model arena synthesizes here once (models/, git-ignored; no download):
# its moves are legal, thanks to constrained decoding, but aimless.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bash "$root/scripts/build.sh" "$root/build"
arena="$root/build/bin/arena"

model="$root/models/demo-qwen2-tiny-q8_0.gguf"
if [[ ! -f "$model" ]]; then
  mkdir -p "$root/models"
  "$arena" synth --arch qwen2 --shape tiny --dtype q8_0 --seed 1 -o "$model"
fi

# Each run gets its own results folder, so running the quickstart again never collides.
output="results/quickstart-$(date +%Y%m%d-%H%M%S)"
cd "$root"
ARENA_DEFAULT_MODEL="$model" "$arena" run configs/quickstart.yaml --output "$output" "$@"
