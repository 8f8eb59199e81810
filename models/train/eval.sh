#!/usr/bin/env bash
# The model card's figures for models/arena-chess-janggi.gguf (or $ARENA_DEFAULT_MODEL): the
# matches of configs/eval/ through `arena run`, their scores split by game (report.py), and the
# held-out agreement with the labelling engine when a training checkpoint is there.
#   models/train/eval.sh [OUTPUT_DIR]   (default results/eval-<date>)
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
out=${1:-$root/results/eval-$(date +%Y%m%d-%H%M%S)}
arena="$root/build/bin/arena"
bash "$root/scripts/build.sh" "$root/build"
for config in model-vs-random model-vs-engines model-free; do
  [[ -f "$out/$config/standings.json" ]] && continue
  echo "== $config"
  start=$SECONDS
  "$arena" run "$root/configs/eval/$config.yaml" --output "$out/$config" --quiet
  echo "$config: $((SECONDS - start)) s"
done
/usr/bin/python3 "$here/report.py" --agent model "$out/model-vs-random" "$out/model-vs-engines"
/usr/bin/python3 "$here/report.py" --agent model-free "$out/model-free"
work="$here/work"
if [[ -f "$work/checkpoint.pt" ]]; then
  /usr/bin/python3 "$here/evaluate.py" --checkpoint "$work/checkpoint.pt" --template "$work/template.gguf" \
    --held-out "$work/held-games.examples.jsonl" --per-game 1000
fi
