#!/usr/bin/env python3
"""Differential tokenizer check against llama.cpp, and the generator of
tests/data/tokenizer/llama_cpp_cases.jsonl.

Needs an existing llama.cpp `llama-tokenize` binary (this script only calls it; it never builds
llama.cpp) and the shared test vocabularies (../shared/testdata/tokenizers).

  scripts/tokenizer_diff.py --llama-tokenize /path/to/llama-tokenize --write tests/data/tokenizer/llama_cpp_cases.jsonl
      regenerates the visible test cases (a fixed, seeded selection; each one is tokenized by
      llama-tokenize with `-f FILE --ids --no-escape`, plus `--no-bos` / `--no-parse-special`).
  scripts/tokenizer_diff.py --llama-tokenize ... --arena build/bin/arena [--count N] [--seed S]
      tokenizes the same selection (or N extra random strings per vocabulary) with both and prints
      every disagreement; exits 1 if there is one.

  scripts/tokenizer_diff.py --unicode-table /usr/share/unicode/UnicodeData.txt > engine/tokenizer/unicode_tables.cpp
      regenerates the codepoint table for Unicode 15.1, the version llama.cpp's tables follow
      (Debian's unicode-data package has the 15.0 UnicodeData.txt; the 627 codepoints Unicode 15.1
      added are listed below), through scripts/gen_unicode_tables.py's own writer. Python's
      unicodedata (Unicode 14 on Python 3.11) misses 5,116 codepoints that llama.cpp classifies,
      which the byte-level BPE pre-tokenizers then split differently. No llama-tokenize needed.

Classes of text: whitespace only (every Unicode White_Space character and a few look-alikes, runs
of 1-40, mixes, with and without a leading space), whitespace around the special-token texts of
each vocabulary ("</s>", "<s>", "<|end|>", "<|im_start|>", ...), and random Unicode-ish strings
(words, contractions, digits, punctuation, CJK, emoji, combining marks, odd spaces).
"""

import argparse
import concurrent.futures
import json
import os
import random
import subprocess
import sys
import tempfile

VOCABS = ["ggml-vocab-phi-3", "ggml-vocab-llama-spm", "ggml-vocab-gpt-2", "vocab-llama3", "vocab-qwen3"]
SPM = {"ggml-vocab-phi-3", "ggml-vocab-llama-spm"}

# Unicode White_Space, plus ZWSP/BOM/U+180E (not White_Space, but space-like) and the ASCII
# separators U+001C-U+001F (Python's str.isspace calls them spaces).
WHITESPACE = [" ", "\t", "\n", "\r", "\v", "\f", "\u0085", "\u00a0", "\u1680", "\u2000", "\u2001",
              "\u2002", "\u2003", "\u2004", "\u2005", "\u2006", "\u2007", "\u2008", "\u2009", "\u200a",
              "\u2028", "\u2029", "\u202f", "\u205f", "\u3000", "\u200b", "\ufeff", "\u180e", "\x1c",
              "\x1d", "\x1e", "\x1f"]
COMMON_WS = [" ", "\t", "\n", "\r", "\u00a0", "\u3000"]
SPECIAL_TEXTS = ["</s>", "<s>", "<unk>", "<|end|>", "<|user|>", "<|assistant|>", "<|endoftext|>",
                 "[PAD32011]", "<|im_start|>", "<|im_end|>", "<|begin_of_text|>", "<|eot_id|>",
                 "<|start_header_id|>", "<|fim_prefix|>", "<think>"]
WORDS = ["Hello", "world", "the", "don't", "I'm", "they're", "we've", "He'll", "'s", "'LL", "a", "café",
         "straße", "привет", "こんにちは", "中文", "한국어", "مرحبا", "हिन्दी", "🙂", "🚀🔥", "👨‍👩‍👧",
         "e\u0301", "123", "1234567890", "3.14", "1,000", "...", "?!", "—", "“quoted”", "(x)",
         "<tag>", "http://a.b/c?d=e", "snake_case", "UPPER", "ǅ", "ﬁ", "½", "٣", "\u00ad", "~", "\\"]


def whitespace_texts():
    """Whitespace-only texts, deterministic."""
    texts = []
    for c in WHITESPACE:
        for n in (1, 2, 3, 5, 16, 40) if c in COMMON_WS else (1, 2, 3):
            texts.append(c * n)
    for a in COMMON_WS:
        for b in COMMON_WS:
            if a != b:
                texts += [a + b, a * 3 + b]
    for c in WHITESPACE:
        texts += [" " + c, "  " + c * 3 + "  "]
    rng = random.Random(11)
    for _ in range(40):
        pool = rng.choice([COMMON_WS, WHITESPACE, [" ", "\n"], [" ", "\t"], [" ", "\r", "\n"]])
        texts.append("".join(rng.choice(pool) for _ in range(rng.randint(1, 40))))
    return list(dict.fromkeys(texts))


def special_texts(rng, count):
    """Special-token texts with whitespace around them (Phi-3's swallow the whitespace after)."""
    texts = ["</s>", "</s> ", " </s>", "</s>\n\n", "</s>   Hello", "Hi </s>\t there", "\n</s>\n",
             "<s>  ", "<s>\n</s>\n", "<|end|>\n", "<|user|>\n  Hello<|end|>\n<|assistant|>\n",
             "<|endoftext|>  ", "<unk> \t", "</s></s>", "</s>\u00a0\u3000x"]
    for _ in range(count):
        parts = []
        for _ in range(rng.randint(1, 3)):
            parts.append("".join(rng.choice(COMMON_WS) for _ in range(rng.randint(0, 4))))
            parts.append(rng.choice(SPECIAL_TEXTS + WORDS[:6]))
        parts.append("".join(rng.choice(COMMON_WS) for _ in range(rng.randint(0, 4))))
        texts.append("".join(parts))
    return list(dict.fromkeys(texts))


def random_codepoint(rng):
    r = rng.random()
    if r < 0.3:
        return chr(rng.randint(0x20, 0x7E))
    if r < 0.5:
        return chr(rng.randint(0xA0, 0x24F))
    if r < 0.6:
        return chr(rng.randint(0x370, 0x52F))
    if r < 0.7:
        return chr(rng.randint(0x4E00, 0x9FFF))
    if r < 0.8:
        return chr(rng.randint(0x1F300, 0x1FAFF))
    if r < 0.9:
        c = rng.randint(0x80, 0x2FFFF)
        return chr(0x41 if 0xD800 <= c <= 0xDFFF else c)
    return rng.choice(WHITESPACE)


def random_texts(rng, count):
    texts = []
    for _ in range(count):
        parts = []
        for _ in range(rng.randint(1, 10)):
            r = rng.random()
            if r < 0.45:
                parts.append(rng.choice(WORDS + SPECIAL_TEXTS))
            elif r < 0.7:
                parts.append(rng.choice(WHITESPACE) * rng.randint(1, 3))
            else:
                parts.append("".join(random_codepoint(rng) for _ in range(rng.randint(1, 6))))
            if rng.random() < 0.5:
                parts.append(" ")
        texts.append("".join(parts))
    return texts


def unicode15_texts():
    """Text with codepoints added in Unicode 15.0 and 15.1 (Kawi letters and digits, Nag Mundari,
    Egyptian format controls, Kaktovik numerals, CJK Extension H and I, ideographic description
    characters), which pre-tokenizers split by category."""
    new = ["\U00011F52", "\U00011F50\U00011F59", "\U00011F04\U00011F05", "\U0001E4D0\U0001E4D1",
           "\U0001E4F0", "\U00013439", "\U0001D2C0\U0001D2C1", "\U00031350", "\U0002EBF0\U0002EBF1",
           "\u2FFC", "\u31EF", "\u0CF3", "\U00011B00", "\U0001E030"]
    texts = []
    for i, c in enumerate(new):
        texts += [c, " " + c, "x" + c + "1", "\u00b2 " + c + " ok", c + "'s " + c + "123"]
    return texts


def selection(extra, seed):
    """(vocab, text, add_special, parse_special) cases: the committed selection, or `extra`
    random strings per vocabulary and mode."""
    rng = random.Random(seed)
    cases = []
    modes = [(True, True), (True, False), (False, True), (False, False)]
    if extra:
        for vocab in VOCABS:
            for text in random_texts(rng, extra) + (whitespace_texts() if vocab in SPM else []):
                for add, parse in modes:
                    cases.append((vocab, text, add, parse))
        return cases
    for vocab in ("ggml-vocab-phi-3", "ggml-vocab-llama-spm"):
        for text in whitespace_texts():
            for add, parse in [(True, True), (False, False)]:
                cases.append((vocab, text, add, parse))
    for vocab in VOCABS:
        for text in special_texts(random.Random(23), 12):
            for add, parse in modes:
                cases.append((vocab, text, add, parse))
        for text in random_texts(rng, 25):
            cases.append((vocab, text, True, True))
            cases.append((vocab, text, False, False))
    for vocab in ("ggml-vocab-gpt-2", "vocab-llama3", "vocab-qwen3"):
        for text in unicode15_texts():
            cases.append((vocab, text, False, False))
    return cases


def llama_ids(binary, testdata, case):
    vocab, text, add, parse = case
    with tempfile.NamedTemporaryFile("wb", suffix=".txt", delete=False) as f:
        f.write(text.encode("utf-8"))
        path = f.name
    try:
        cmd = [binary, "-m", os.path.join(testdata, "tokenizers", vocab + ".gguf"), "-f", path, "--ids",
               "--log-disable", "--no-escape"]
        if not add:
            cmd.append("--no-bos")
        if not parse:
            cmd.append("--no-parse-special")
        out = subprocess.run(cmd, capture_output=True, timeout=120, check=True).stdout.decode()
    finally:
        os.unlink(path)
    line = [l for l in out.splitlines() if l.startswith("[")][-1]
    return json.loads(line)


def arena_ids(binary, testdata, case):
    vocab, text, add, parse = case
    cmd = [binary, "tokenize", "--model", os.path.join(testdata, "tokenizers", vocab + ".gguf")]
    if add:
        cmd.append("--add-special")
    if parse:
        cmd.append("--parse-special")
    cmd += ["--", text]
    out = subprocess.run(cmd, capture_output=True, timeout=120, check=True).stdout.decode()
    return [int(t) for t in out.split()]


# Unicode 15.1 additions over 15.0 (DerivedAge.txt, "15.1"): ideographic description characters,
# a CJK stroke, and CJK Unified Ideographs Extension I.
UNICODE_15_1_ADDITIONS = [(0x2FFC, 0x2FFF, "So"), (0x31EF, 0x31EF, "So"), (0x2EBF0, 0x2EE5D, "Lo")]


class UnicodeDataShim:
    """The part of Python's unicodedata that gen_unicode_tables.py uses (category, unidata_version),
    read from a UnicodeData.txt (ranges given as <..., First>/<..., Last> pairs) plus `extra`."""

    def __init__(self, path, version, extra):
        self.unidata_version = version
        self.categories = {}
        first = None
        with open(path, encoding="utf-8") as f:
            for line in f:
                fields = line.split(";")
                cpt, name, category = int(fields[0], 16), fields[1], fields[2]
                if name.endswith(", First>"):
                    first = cpt
                elif name.endswith(", Last>"):
                    for c in range(first, cpt + 1):
                        self.categories[c] = category
                else:
                    self.categories[cpt] = category
        for lo, hi, category in extra:
            for c in range(lo, hi + 1):
                assert c not in self.categories, hex(c)
                self.categories[c] = category

    def category(self, ch):
        return self.categories.get(ord(ch), "Cn")


def write_unicode_table(ucd_path):
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import gen_unicode_tables

    gen_unicode_tables.unicodedata = UnicodeDataShim(ucd_path, "15.1.0", UNICODE_15_1_ADDITIONS)
    real_stdout = sys.stdout
    import io

    buffer = io.StringIO()
    sys.stdout = buffer
    try:
        gen_unicode_tables.main()
    finally:
        sys.stdout = real_stdout
    text = buffer.getvalue().replace(
        "// GENERATED by scripts/gen_unicode_tables.py from Python's unicodedata (Unicode 15.1.0); do not edit.",
        "// GENERATED by scripts/tokenizer_diff.py --unicode-table (scripts/gen_unicode_tables.py's writer) from\n"
        "// UnicodeData.txt 15.0.0 (Debian unicode-data) and the Unicode 15.1 additions; do not edit.", 1)
    sys.stdout.write(text)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--llama-tokenize", help="an existing llama.cpp llama-tokenize binary")
    parser.add_argument("--unicode-table", metavar="UNICODEDATA_TXT",
                        help="print engine/tokenizer/unicode_tables.cpp for Unicode 15.1 from this UnicodeData.txt")
    parser.add_argument("--testdata", default=os.path.join(os.path.dirname(__file__), "..", "..", "shared", "testdata"))
    parser.add_argument("--write", help="write the cases with llama.cpp's ids to this .jsonl file")
    parser.add_argument("--arena", help="arena binary: compare its ids with llama.cpp's")
    parser.add_argument("--count", type=int, default=0, help="random strings per vocabulary instead of the committed selection")
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--jobs", type=int, default=4)
    args = parser.parse_args()
    if args.unicode_table:
        write_unicode_table(args.unicode_table)
        return 0
    if not args.llama_tokenize:
        parser.error("--llama-tokenize is required")
    if not args.write and not args.arena:
        parser.error("give --write FILE and/or --arena BINARY")

    cases = selection(args.count, args.seed)
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        expected = list(pool.map(lambda c: llama_ids(args.llama_tokenize, args.testdata, c), cases))
    print(f"{len(cases)} cases tokenized by llama.cpp", file=sys.stderr)

    if args.write:
        with open(args.write, "w", encoding="utf-8") as out:
            for (vocab, text, add, parse), ids in zip(cases, expected):
                out.write(json.dumps({"vocab": vocab, "text": text, "add_special": add, "parse_special": parse,
                                      "ids": ids}, ensure_ascii=True) + "\n")
    if args.arena:
        with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
            got = list(pool.map(lambda c: arena_ids(args.arena, args.testdata, c), cases))
        bad = 0
        for case, want, have in zip(cases, expected, got):
            if want != have:
                bad += 1
                print(f"MISMATCH {case[0]} add_special={case[2]} parse_special={case[3]} text={case[1]!r}\n"
                      f"  llama.cpp {want}\n  arena     {have}")
        print(f"{len(cases)} cases compared, {bad} mismatches", file=sys.stderr)
        return 1 if bad else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
