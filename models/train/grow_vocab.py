"""Starts a model with a grown vocabulary from a trained one: a template made by `arena synth
--tokenizer OLD.gguf --user-tokens moves.txt` has OLD's tokens first and the moves after them.
Every weight is copied; each new token's embedding is the mean of the embeddings of the tokens
OLD spelled it with (read from OLD's examples, which list every legal move's tokens), so the
model starts where it was, reading a whole move where it read its pieces.

    /usr/bin/python3 models/train/grow_vocab.py OLD.gguf OLD.examples.jsonl NEW_TEMPLATE.gguf OUT.gguf"""
import json
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gguf_fill import read_layout  # noqa: E402
from model import Transformer  # noqa: E402
from train import export, load_gguf_weights, shape_of  # noqa: E402


def gpt2_byte_decoder():
    """GPT-2's byte-level symbols (the normal tokens' text) back to the bytes they stand for."""
    printable = [*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1), *range(ord("®"), ord("ÿ") + 1)]
    symbols, extra = {}, 0
    for b in range(256):
        if b in printable:
            symbols[chr(b)] = b
        else:
            symbols[chr(256 + extra)] = b
            extra += 1
    return symbols


def spellings(examples_path, token_text):
    """Each legal move's text -> the token ids it is written with (its end-of-turn dropped)."""
    decode = gpt2_byte_decoder()
    spelled = {}
    with open(examples_path) as f:
        for line in f:
            for move in json.loads(line)["legal"]:
                ids = move[:-1]
                text = bytes(decode[c] for t in ids for c in token_text[t]).decode("utf-8")
                spelled.setdefault(text, ids)
    return spelled


def main():
    old_path, examples_path, template, output = sys.argv[1:5]
    old_tokens = read_layout(old_path)[0]["tokenizer.ggml.tokens"]
    new_tokens = read_layout(template)[0]["tokenizer.ggml.tokens"]
    if new_tokens[:len(old_tokens)] != old_tokens:
        sys.exit(f"{template} does not begin with the tokens of {old_path}")
    old = Transformer(shape_of(old_path))
    load_gguf_weights(old, old_path)
    new = Transformer(shape_of(template))
    state = old.state_dict()
    embd = state.pop("tok_embd.weight")
    spelled = spellings(examples_path, old_tokens)
    grown = torch.empty(len(new_tokens), embd.shape[1])
    grown[:len(old_tokens)] = embd
    missing = 0
    for i in range(len(old_tokens), len(new_tokens)):
        ids = spelled.get(new_tokens[i])
        if ids is None:  # not among the examples' legal moves: left at its random start
            grown[i] = new.tok_embd.weight[i].detach()
            missing += 1
        else:
            grown[i] = embd[ids].mean(0)
    state["tok_embd.weight"] = grown
    new.load_state_dict(state)
    export(new, template, output)
    print(f"{output}: {len(new_tokens) - len(old_tokens)} tokens added, {missing} of them not spelled "
          f"in {examples_path}")


if __name__ == "__main__":
    main()
