#!/usr/bin/env python3
"""Writes the seed corpora of the fuzz targets into OUT/<target>/ from the committed seeds in
fuzz/corpus/<target>/ and the shared test data (FENs and EPD lines of the perft suites, the
tokenizer test texts for each vocabulary, the example and test configs (configs/,
tests/data/configs/), and two tiny GGUF models built here: a llama with a
SentencePiece vocabulary in f32 and one in q8_0, small enough for libFuzzer to mutate quickly).

Usage: fuzz/make_seeds.py TESTDATA OUT
"""
import hashlib
import os
import random
import shutil
import struct
import sys


def put(out_dir, data):
    os.makedirs(out_dir, exist_ok=True)
    if isinstance(data, str):
        data = data.encode()
    name = hashlib.sha1(data).hexdigest()[:16]
    with open(os.path.join(out_dir, name), "wb") as f:
        f.write(data)


# --- a tiny GGUF v3 writer -------------------------------------------------------------------
def gstr(s):
    b = s.encode() if isinstance(s, str) else s
    return struct.pack("<Q", len(b)) + b


def gval(v):
    """(type id, encoded bytes) of a metadata value."""
    if isinstance(v, bool):
        return 7, struct.pack("<B", v)
    if isinstance(v, int):
        return 4, struct.pack("<I", v)
    if isinstance(v, float):
        return 6, struct.pack("<f", v)
    if isinstance(v, (str, bytes)):
        return 8, gstr(v)
    if isinstance(v, tuple):  # ("f32" | "i32" | "str", [items])
        kind, items = v
        if kind == "f32":
            return 9, struct.pack("<IQ", 6, len(items)) + b"".join(struct.pack("<f", x) for x in items)
        if kind == "i32":
            return 9, struct.pack("<IQ", 5, len(items)) + b"".join(struct.pack("<i", x) for x in items)
        return 9, struct.pack("<IQ", 8, len(items)) + b"".join(gstr(x) for x in items)
    raise TypeError(v)


def q8_0(values):
    out = b""
    for i in range(0, len(values), 32):
        block = values[i:i + 32]
        amax = max(abs(x) for x in block) or 1.0
        d = amax / 127
        out += struct.pack("<e", d) + bytes((round(x / d) & 0xFF) for x in block)
    return out


def gguf(metadata, tensors, align=32):
    """tensors: list of (name, dims, type id, bytes)."""
    head = b"GGUF" + struct.pack("<IQQ", 3, len(tensors), len(metadata))
    for k, v in metadata.items():
        t, b = gval(v)
        head += gstr(k) + struct.pack("<I", t) + b
    offset = 0
    infos, blobs = b"", []
    for name, dims, ttype, data in tensors:
        infos += gstr(name) + struct.pack("<I", len(dims)) + b"".join(struct.pack("<Q", d) for d in dims)
        infos += struct.pack("<IQ", ttype, offset)
        pad = (-len(data)) % align
        blobs.append(data + b"\0" * pad)
        offset += len(data) + pad
    body = head + infos
    body += b"\0" * ((-len(body)) % align)
    return body + b"".join(blobs)


def tiny_llama(ttype):
    rng = random.Random(7)
    embd, heads, kv_heads, ffn, ctx = 32, 2, 1, 64, 64
    head_dim = embd // heads
    tokens = ["<unk>", "<s>", "</s>"] + ["<0x%02X>" % b for b in range(256)]
    tokens += ["\u2581the", "\u2581a", "\u2581e2e4", "\u2581Hello", "\u2581world", "\u2581\u2581", "e4", "Nf3"]
    vocab = len(tokens)
    md = {
        "general.architecture": "llama", "general.name": "fuzz-tiny",
        "llama.block_count": 1, "llama.context_length": ctx, "llama.embedding_length": embd,
        "llama.feed_forward_length": ffn, "llama.attention.head_count": heads,
        "llama.attention.head_count_kv": kv_heads, "llama.rope.dimension_count": head_dim,
        "llama.attention.layer_norm_rms_epsilon": 1e-5, "llama.rope.freq_base": 10000.0,
        "tokenizer.ggml.model": "llama", "tokenizer.ggml.tokens": ("str", tokens),
        "tokenizer.ggml.scores": ("f32", [0.0] * 3 + [0.0] * 256 + [-1.0 * i for i in range(vocab - 259)]),
        "tokenizer.ggml.token_type": ("i32", [2, 3, 3] + [6] * 256 + [1] * (vocab - 259)),
        "tokenizer.ggml.bos_token_id": 1, "tokenizer.ggml.eos_token_id": 2,
        "tokenizer.chat_template": "{% for message in messages %}<|im_start|>{{ message['role'] }}\n"
                                   "{{ message['content'] }}<|im_end|>\n{% endfor %}",
    }

    def weight(name, dims, quantize=True):
        n = 1
        for d in dims:
            n *= d
        values = [rng.gauss(0, 0.05) for _ in range(n)]
        if ttype == 8 and quantize and dims[0] % 32 == 0:
            return (name, dims, 8, q8_0(values))
        return (name, dims, 0, struct.pack("<%df" % n, *values))

    ones = lambda name: (name, [embd], 0, struct.pack("<%df" % embd, *([1.0] * embd)))
    tensors = [weight("token_embd.weight", [embd, vocab]), ones("output_norm.weight"),
               weight("output.weight", [embd, vocab]), ones("blk.0.attn_norm.weight"),
               weight("blk.0.attn_q.weight", [embd, embd]), weight("blk.0.attn_k.weight", [embd, kv_heads * head_dim]),
               weight("blk.0.attn_v.weight", [embd, kv_heads * head_dim]),
               weight("blk.0.attn_output.weight", [embd, embd]), ones("blk.0.ffn_norm.weight"),
               weight("blk.0.ffn_gate.weight", [embd, ffn]), weight("blk.0.ffn_up.weight", [embd, ffn]),
               weight("blk.0.ffn_down.weight", [ffn, embd])]
    return gguf(md, tensors)


def read_inp(path):
    texts, cur = [], []
    with open(path, encoding="utf-8", errors="surrogateescape") as f:
        for line in f.read().split("\n"):
            if line == "__ggml_vocab_test__":
                texts.append("\n".join(cur))
                cur = []
            else:
                cur.append(line)
    return texts


def main():
    testdata, out = sys.argv[1], sys.argv[2]
    here = os.path.dirname(os.path.abspath(__file__))
    committed = os.path.join(here, "corpus")
    for target in os.listdir(committed) if os.path.isdir(committed) else []:
        src = os.path.join(committed, target)
        for name in os.listdir(src):
            os.makedirs(os.path.join(out, target), exist_ok=True)
            shutil.copy(os.path.join(src, name), os.path.join(out, target, name))
    perft = os.path.join(testdata, "perft")
    for epd in sorted(os.listdir(perft)) if os.path.isdir(perft) else []:
        with open(os.path.join(perft, epd)) as f:
            lines = [l.strip() for l in f if l.strip()]
        for line in lines:
            fen = line.split(";")[0].strip()
            put(os.path.join(out, "chess_fen_fuzzer" if epd.startswith("chess") else "janggi_fen_fuzzer"), fen)
            put(os.path.join(out, "epd_fuzzer"), line + "\n")
    vocabs = ["vocab-qwen3", "vocab-llama3", "ggml-vocab-gpt-2", "ggml-vocab-llama-spm", "ggml-vocab-phi-3"]
    tok_dir = os.path.join(testdata, "tokenizers")
    for i, name in enumerate(vocabs):
        inp = os.path.join(tok_dir, name + ".inp")
        if not os.path.exists(inp):
            continue
        for j, text in enumerate(read_inp(inp)[:40]):
            selector = i + 5 * (j % 4)  # add_special / parse_special vary too
            put(os.path.join(out, "tokenizer_fuzzer"), bytes([selector]) + text.encode("utf-8", "surrogateescape"))
    # The shipped example configs and the config tests' files (valid and invalid ones).
    repo = os.path.dirname(here)
    for folder in (os.path.join(repo, "configs"), os.path.join(repo, "tests", "data", "configs")):
        for name in sorted(os.listdir(folder)) if os.path.isdir(folder) else []:
            if name.endswith(".yaml"):
                with open(os.path.join(folder, name), "rb") as f:
                    put(os.path.join(out, "config_fuzzer"), f.read())
    for target in ("gguf_fuzzer", "model_config_fuzzer"):
        put(os.path.join(out, target), tiny_llama(0))
        put(os.path.join(out, target), tiny_llama(8))


if __name__ == "__main__":
    main()
