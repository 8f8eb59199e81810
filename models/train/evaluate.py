"""Top-1 agreement of the trained model with the labelling engine on held-out positions: the
share of positions, per game, where the model's greedy answer is exactly the engine's move. The
answer is decoded without the legal-move constraint, so the agent's constrained pick agrees at
least this often (when the free greedy answer is the label, the constrained one is too).
   evaluate.py --checkpoint work/checkpoint.pt --template work/template.gguf --held-out FILE [--per-game 1000]"""
import argparse
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from model import Transformer  # noqa: E402
from train import load_examples, move_accuracy, shape_of  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--checkpoint", required=True)
    ap.add_argument("--template", required=True)
    ap.add_argument("--held-out", required=True)
    ap.add_argument("--per-game", type=int, default=1000)
    args = ap.parse_args()
    torch.set_num_threads(os.cpu_count())
    model = Transformer(shape_of(args.template))
    model.load_state_dict(torch.load(args.checkpoint)["model"])
    examples = load_examples(args.held_out)
    for family in ("chess", "janggi"):
        chosen = [e for e in examples if (e[0] == "chess") == (family == "chess")][:args.per_game]
        acc = move_accuracy(model, chosen, limit=len(chosen))
        print(f"{family}: {acc.get(family, 0.0):.1%} of {len(chosen)} held-out positions", flush=True)


if __name__ == "__main__":
    main()
