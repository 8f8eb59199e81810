#!/usr/bin/env bash
# The main job: installs what is missing, builds, and runs the quickstart tournament
# (configs/quickstart.yaml: two LLM agents on the project's own model, the built-in search,
# random moves and Stockfish, in chess and janggi). Extra arguments go to `arena run`
# (e.g. --web-port 8080).
#
# Its LLM agents run on the project's default model, models/arena-chess-janggi.gguf: trained by
# models/train/train.sh and committed (models/README.md), so nothing is downloaded or made here.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bash "$root/scripts/build.sh" "$root/build"

# Each run gets its own results folder, so running the quickstart again never collides.
output="results/quickstart-$(date +%Y%m%d-%H%M%S)"
cd "$root"
"$root/build/bin/arena" run configs/quickstart.yaml --output "$output" "$@"
