"""The moves the model's tokenizer keeps whole: every move listed under `Legal moves:` in the
prompts of `arena dataset --text` output, one a line, sorted, written as `arena synth
--user-tokens` reads them. A move of the list is then one token in the prompt and in the answer,
so answering with a legal move is copying one token of the prompt, not a run of them.

    /usr/bin/python3 models/train/move_tokens.py TEXT.jsonl... > moves.txt"""
import json
import sys


def listed_moves(text):
    """The lines between `Legal moves:` and the next list's heading."""
    lines = text.split("\n")
    start = lines.index("Legal moves:") + 1
    end = lines.index("Escapes:", start)
    return lines[start:end]


def main():
    moves = set()
    for path in sys.argv[1:]:
        with open(path, encoding="utf-8") as f:
            for line in f:
                moves.update(listed_moves(json.loads(line)["text"]))
    moves.discard("")
    sys.stdout.write("".join(m + "\n" for m in sorted(moves)))


if __name__ == "__main__":
    main()
