"""Where a model's greedy, unconstrained answers stop being a legal move: on held-out examples
(100 per game, spread over the file), each answer is decoded token by token until it leaves every
legal move's tokens ("fail@j": its token j begins no legal move that agrees with the answer so
far) or ends one ("legal"). fail@0 is a first token no legal move starts with; later failures
are copying failures, a move begun and not finished as any listed move goes on.

    /usr/bin/python3 models/train/free_failures.py MODEL.gguf TEMPLATE.gguf HELD.examples.jsonl"""
import collections
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from model import Transformer  # noqa: E402
from train import load_examples, load_gguf_weights, shape_of  # noqa: E402


def outcome(model, seq, n_answer, legal, max_tokens=10):
    """"legal", or "fail@j" with j the first answer token that no legal move has there."""
    ids = torch.from_numpy(seq[:len(seq) - n_answer]).unsqueeze(0)
    live = legal
    for j in range(max_tokens):
        token = int(model(ids)[0, -1].argmax())
        live = [move for move in live if len(move) > j and move[j] == token]
        if not live:
            return f"fail@{j}"
        if token == seq[-1]:  # the end of the turn, after a whole legal move
            return "legal"
        ids = torch.cat([ids, torch.tensor([[token]])], dim=1)
    return f"fail@{max_tokens}"


def main():
    model_path, template, held_path = sys.argv[1:4]
    torch.set_num_threads(os.cpu_count())
    model = Transformer(shape_of(template))
    load_gguf_weights(model, model_path)
    model.eval()
    held = load_examples(held_path)
    counts = collections.defaultdict(collections.Counter)
    with torch.no_grad():
        for variant, seq, n_answer, _, legal in held[::max(1, len(held) // 400)]:
            fam = "chess" if variant == "chess" else "janggi"
            if legal and sum(counts[fam].values()) < 100:
                counts[fam][outcome(model, seq, n_answer, legal)] += 1
    for fam, c in sorted(counts.items()):
        print(fam, ", ".join(f"{k} {v}" for k, v in sorted(c.items())))


if __name__ == "__main__":
    main()
