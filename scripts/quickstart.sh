#!/usr/bin/env bash
# The main job: installs what is missing, builds, and runs the best demo arena has today.
# The tournament runner and the board view do not exist yet; until they do, this plays chess
# between LLM agents through the batching engine on a small random-weight model that arena
# synthesizes itself (no download), then a janggi round. Extra arguments go to `arena demo`.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bash "$root/scripts/build.sh" "$root/build"
arena="$root/build/bin/arena"

model="$root/models/demo-qwen2-tiny-q8_0.gguf"
if [[ ! -f "$model" ]]; then
  mkdir -p "$root/models"
  "$arena" synth --arch qwen2 --shape tiny --dtype q8_0 --seed 1 -o "$model"
fi

echo "arena: tournaments and the board view are not built yet; running the LLM self-play demo instead."
"$arena" demo --model "$model" --game chess --games 8 --max-plies 40 "$@"
"$arena" demo --model "$model" --game janggi --games 4 --max-plies 20 "$@"
