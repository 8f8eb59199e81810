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
from train import greedy_answer, load_examples, load_gguf_weights, shape_of  # noqa: E402


def outcome(answer, legal):
    """"legal" when `answer` is a legal move's tokens (each move ends with the end of the turn),
    else "fail@j" with j the first position where it stops being the start of one."""
    if answer in legal:
        return "legal"
    for j in range(len(answer)):
        if not any(move[:j + 1] == answer[:j + 1] for move in legal):
            return f"fail@{j}"
    return f"fail@{len(answer)}"  # a legal move's start, cut off at the token limit


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
                answer = greedy_answer(model, seq[:len(seq) - n_answer], seq[-1], max_tokens=10)
                counts[fam][outcome(answer, legal)] += 1
    for fam, c in sorted(counts.items()):
        print(fam, ", ".join(f"{k} {v}" for k, v in sorted(c.items())))


if __name__ == "__main__":
    main()
