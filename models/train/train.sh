#!/usr/bin/env bash
# Reproduces models/arena-chess-janggi.gguf: games and labels from Stockfish / Fairy-Stockfish,
# a tokenizer learned from the agent's prompts, prompts rendered by arena itself (`arena dataset`:
# the exact tokens the model's agent sends), training, export. Every step resumes where a killed
# run stopped (delete models/train/work to start over). About 110 minutes on 2 cores (games 11,
# training 97); models/train/eval.sh then measures the model card's figures.
#   models/train/train.sh [--seed N] [--steps N] [--lr X] [--warmup N] [--aux-weight X] [--legal-weight X]
#                         [--context N] [--from MODEL.gguf] [--move-tokens]
# --context is the model's context length (default 1024: janggi's longest prompts pass 512).
# --from trains on from a model this script made (its weights, shape and tokenizer) instead of
# random weights and a new tokenizer: how the shipped file was made (models/README.md). --aux-weight
# adds the next-token loss on the prompt, so weighted, to the loss on the answer; --legal-weight the
# legality loss (the probability of the tokens that go on with some legal move: train.py).
# --move-tokens makes every move listed in the games' prompts one token of the vocabulary
# (move_tokens.py, grow_vocab.py): the move-token run of models/README.md, not shipped.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
seed=1
steps=1800
lr=2e-3
warmup=100
aux_weight=0
legal_weight=0
context=1024
from=""
move_tokens=""
while (($#)); do
  case $1 in
    --seed) seed=$2; shift 2 ;;
    --steps) steps=$2; shift 2 ;;
    --lr) lr=$2; shift 2 ;;
    --warmup) warmup=$2; shift 2 ;;
    --aux-weight) aux_weight=$2; shift 2 ;;
    --legal-weight) legal_weight=$2; shift 2 ;;
    --context) context=$2; shift 2 ;;
    --from) from=$(realpath "$2"); shift 2 ;;
    --move-tokens) move_tokens=1; shift ;;
    *) echo "usage: $0 [--seed N] [--steps N] [--lr X] [--warmup N] [--aux-weight X] [--legal-weight X] [--context N] [--from MODEL.gguf] [--move-tokens]" >&2
      exit 2 ;;
  esac
done
work="$here/work"
py=/usr/bin/python3
arena="$root/build/bin/arena"
config="$root/configs/eval/model-vs-random.yaml"
mkdir -p "$work"

bash "$here/setup.sh"
bash "$root/scripts/build.sh" "$root/build"

echo "== 1. games (positions labelled by a 4000-node search)"
$py "$here/datagen.py" --out "$work/games" --workers 2 --games-per-worker 800 --seed "$seed"
$py "$here/datagen.py" --out "$work/held-games" --workers 2 --games-per-worker 40 --seed "$((seed + 1000))"

echo "== 2. tokenizer: byte-level BPE learned from the agent's prompts${move_tokens:+, each listed move one token}"
shape=(--arch llama --layers 4 --embd 192 --heads 6 --kv-heads 2 --ffn 512 --tied)
if [[ ! -f "$work/template.gguf" ]]; then
  if [[ -n "$from" ]]; then
    cp "$from" "$work/init.gguf"  # a copy: the run may end by overwriting the file it came from
    base="$work/init.gguf"
  else
    "$arena" synth --arch llama --shape tiny --dtype f32 --seed 1 -o "$work/builtin-vocab.gguf" > /dev/null
    # head reads the files itself: `cat | head` fails under pipefail when head closes the pipe early
    head -q -n 100 "$work/games/games-0.jsonl" "$work/games/games-1.jsonl" > "$work/corpus-games.jsonl"
    "$arena" dataset --config "$config" --agent model --model "$work/builtin-vocab.gguf" --text \
      "$work/corpus-games.jsonl" -o "$work/corpus.jsonl"
    $py -c 'import json, sys
with open(sys.argv[2], "w") as out:
    for line in open(sys.argv[1]):
        d = json.loads(line)
        out.write((d["text"] + d["move"]).replace("<|im_start|>", "").replace("<|im_end|>", "") + "\n")
' "$work/corpus.jsonl" "$work/corpus.txt"
    "$arena" synth "${shape[@]}" --vocab 1024 --context "$context" --corpus "$work/corpus.txt" --dtype f16 \
      --seed 1 --name arena-chess-janggi -o "$work/bpe.gguf"
    base="$work/bpe.gguf"
  fi
  if [[ -n "$move_tokens" ]]; then
    # Every move the games' prompts list becomes a user-defined token after the BPE vocabulary (a
    # --from model's embeddings for them start as the mean of the pieces it spelled them with).
    "$arena" dataset --config "$config" --agent model --model "$base" --text "$work"/games/games-*.jsonl \
      -o "$work/moves-text.jsonl"
    $py "$here/move_tokens.py" "$work/moves-text.jsonl" > "$work/moves.txt"
    "$arena" synth "${shape[@]}" --context "$context" --tokenizer "$base" --user-tokens "$work/moves.txt" \
      --dtype f16 --seed 1 --name arena-chess-janggi -o "$work/template.gguf.part"
    if [[ -n "$from" ]]; then
      $py "$here/grow_vocab.py" "$base" "$work/moves-text.jsonl" "$work/template.gguf.part" "$work/grown.gguf"
      mv "$work/grown.gguf" "$work/init.gguf"
    fi
    mv "$work/template.gguf.part" "$work/template.gguf"
  else
    cp "$base" "$work/template.gguf"
  fi
fi
# A model trained on keeps its weights and tokenizer; its context may grow (rotary positions).
$py -c 'import sys; sys.path.insert(0, sys.argv[1]); from gguf_fill import set_context
if set_context(sys.argv[2], int(sys.argv[3])) != int(sys.argv[3]): print("context set to", sys.argv[3])
' "$here" "$work/template.gguf" "$context"

echo "== 3. examples in the agent's tokens"
for set in games held-games; do
  if [[ ! -f "$work/$set.examples.jsonl" ]]; then
    "$arena" dataset --config "$config" --agent model --model "$work/template.gguf" \
      "$work/$set"/games-*.jsonl -o "$work/$set.examples.jsonl.part"
    mv "$work/$set.examples.jsonl.part" "$work/$set.examples.jsonl"
  fi
done

echo "== 4. training"
$py "$here/train.py" --train "$work/games.examples.jsonl" --held-out "$work/held-games.examples.jsonl" \
  --template "$work/template.gguf" --output "$work/model.gguf" --checkpoint "$work/checkpoint.pt" \
  --steps "$steps" --lr "$lr" --warmup "$warmup" --aux-weight "$aux_weight" \
  --legal-weight "$legal_weight" --seed "$seed" ${from:+--init "$work/init.gguf"}
cp "$work/model.gguf" "$root/models/arena-chess-janggi.gguf"
echo "wrote models/arena-chess-janggi.gguf"
