"""How often an example's answer appears, token for token, in its own prompt.

A model copies a listed move most easily when the list holds the answer's own tokens. Usage:
    /usr/bin/python3 models/train/overlap.py models/train/work/held-games.examples.jsonl
prints, per game, the examples whose answer (without the end-of-turn token) is a contiguous run
of their prompt's tokens.
"""
import collections
import json
import sys


def contains(seq, run):
    return any(seq[i:i + len(run)] == run for i in range(len(seq) - len(run) + 1))


def main(path):
    counts = collections.defaultdict(lambda: [0, 0])
    with open(path) as f:
        for line in f:
            example = json.loads(line)
            game = "chess" if example["variant"] == "chess" else "janggi"
            counts[game][0] += contains(example["prompt"], example["answer"][:-1])
            counts[game][1] += 1
    for game, (found, total) in sorted(counts.items()):
        print(f"{game}: {found} of {total} answers appear in their prompt ({100 * found / total:.1f}%)")


if __name__ == "__main__":
    main(sys.argv[1])
