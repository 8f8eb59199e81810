"""Trains the arena default model on `arena dataset` examples (the exact tokens of its agent's
requests), the loss on the answer tokens (the move and the end of the turn) plus, weighted by
--aux-weight, the next-token loss on the prompt (predicting the legal moves, captures and escapes
from the board makes the model read the board) and, weighted by --legal-weight, the legality loss
(at each answer token, minus the log of the probability that the model gives to the tokens with
which some legal move goes on from the answer so far: every legal move, not only the label, teaches
the model to copy from the list), and writes the GGUF.

Resumable: a checkpoint (model, optimizer, step, data order) is written every --save-every steps
and read back at start. Deterministic for a seed on one machine (torch's CPU kernels may differ
in the last bits between CPUs)."""
import argparse
import json
import math
import os
import random
import sys
import time

import numpy as np
import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gguf_fill import fill, read_layout, read_tensors  # noqa: E402
from model import Shape, Transformer  # noqa: E402


def allowed_tokens(answer, legal):
    """For each answer position j, the tokens that some legal move (its tokens, then the end of the
    turn) has at j where its first j tokens are the answer's."""
    out, live = [], legal
    for j, token in enumerate(answer):
        out.append(np.array(sorted({seq[j] for seq in live if len(seq) > j}), dtype=np.int64))
        live = [seq for seq in live if len(seq) > j and seq[j] == token]
    return out


def load_examples(path):
    """(variant, prompt + answer ids, answer length, allowed tokens per answer position, the legal
    moves' ids) for each example."""
    out = []
    with open(path) as f:
        for line in f:
            d = json.loads(line)
            legal = d.get("legal", [])
            out.append((d["variant"], np.array(d["prompt"] + d["answer"], dtype=np.int64), len(d["answer"]),
                        allowed_tokens(d["answer"], legal), legal))
    return out


def batches(examples, tokens_per_batch, rng):
    """Examples of similar length together (little padding), batches in random order."""
    order = sorted(range(len(examples)), key=lambda i: (len(examples[i][1]), rng.random()))
    out, cur, longest = [], [], 0
    for i in order:
        n = len(examples[i][1])
        if cur and max(longest, n) * (len(cur) + 1) > tokens_per_batch:
            out.append(cur)
            cur, longest = [], 0
        cur.append(i)
        longest = max(longest, n)
    if cur:
        out.append(cur)
    rng.shuffle(out)
    return out


def collate(examples, idx, vocab=None):
    """ids [b, t] (right padded); answer targets [b, t] (-100 except where the answer is
    predicted) and prompt targets [b, t] (-100 except where the prompt's next token is); with the
    vocabulary's size, the legality targets: (rows, columns, allowed [n, vocab]) of the positions
    that predict an answer token (None if the examples have no legal moves)."""
    t = max(len(examples[i][1]) for i in idx)
    ids = torch.zeros((len(idx), t), dtype=torch.long)
    targets = torch.full((len(idx), t), -100, dtype=torch.long)
    prompt_targets = torch.full((len(idx), t), -100, dtype=torch.long)
    for row, i in enumerate(idx):
        seq, n_answer = examples[i][1], examples[i][2]
        n_prompt = len(seq) - n_answer
        ids[row, :len(seq)] = torch.from_numpy(seq)
        # logits at position p predict token p + 1: the answer's tokens are predicted from
        # the position before each.
        targets[row, n_prompt - 1:len(seq) - 1] = torch.from_numpy(seq[n_prompt:])
        prompt_targets[row, :n_prompt - 1] = torch.from_numpy(seq[1:n_prompt])
    if vocab is None or not all(examples[i][4] for i in idx):
        return ids, targets, prompt_targets, None
    rows, cols, allowed = [], [], []
    for row, i in enumerate(idx):
        seq, n_answer, per_position = examples[i][1], examples[i][2], examples[i][3]
        for j, tokens in enumerate(per_position):
            rows.append(row)
            cols.append(len(seq) - n_answer - 1 + j)
            mask = torch.zeros(vocab, dtype=torch.bool)
            mask[torch.from_numpy(tokens)] = True
            allowed.append(mask)
    return ids, targets, prompt_targets, (torch.tensor(rows), torch.tensor(cols), torch.stack(allowed))


def cross_entropy(logits, targets):
    return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), targets.reshape(-1), ignore_index=-100)


def legality_loss(at, allowed):
    """Mean over the answer's positions (`at`: their logits) of -log P(a token some legal move goes on with)."""
    return (at.logsumexp(-1) - at.masked_fill(~allowed, float("-inf")).logsumexp(-1)).mean()


def loss_of(model, ids, targets, prompt_targets, legal, aux_weight, legal_weight):
    """(loss to train on, the answer's loss, the prompt's loss, the legality loss): the answer's,
    the prompt's weighted by aux_weight and the legality loss weighted by legal_weight, each a mean
    over its tokens (None where not computed). Without the prompt's loss, logits are computed only
    at the positions that predict an answer token (the vocabulary is most of the cost there)."""
    h = model.hidden(ids)
    at_answer = targets != -100
    answer_logits = model.logits(h[at_answer])
    answer = F.cross_entropy(answer_logits, targets[at_answer])
    loss, prompt, legality = answer, None, None
    if aux_weight != 0:
        prompt = cross_entropy(model.logits(h), prompt_targets)
        loss = loss + aux_weight * prompt
    if legal_weight != 0 and legal is not None:
        rows, cols, allowed = legal
        index = torch.full(targets.shape, -1, dtype=torch.long)
        index[at_answer] = torch.arange(answer_logits.shape[0])
        legality = legality_loss(answer_logits[index[rows, cols]], allowed)
        loss = loss + legal_weight * legality
    return loss, answer, prompt, legality


def smoothed(prev, x):
    """An exponential moving average of the losses the progress lines print."""
    return x if prev is None else 0.98 * prev + 0.02 * x


@torch.no_grad()
def move_accuracy(model, examples, limit=400):
    """Share of examples whose answer the model predicts exactly, greedily, token by token (the
    answer tokens given: teacher forcing gives the same verdict for an exact match)."""
    model.eval()
    right = {}
    total = {}
    for start in range(0, min(limit, len(examples)), 32):
        idx = list(range(start, min(start + 32, limit, len(examples))))
        ids, targets, _, _ = collate(examples, idx)
        pred = model(ids).argmax(-1)
        ok = ((pred == targets) | (targets == -100)).all(dim=1)
        for row, i in enumerate(idx):
            fam = "chess" if examples[i][0] == "chess" else "janggi"
            total[fam] = total.get(fam, 0) + 1
            right[fam] = right.get(fam, 0) + int(ok[row])
    model.train()
    return {k: right[k] / total[k] for k in total}


@torch.no_grad()
def greedy_answer(model, prompt, eos, max_tokens):
    """The model's greedy tokens after `prompt` (ids), nothing constraining them: up to and with
    the end of the turn `eos`, or `max_tokens` of them."""
    ids = torch.from_numpy(prompt).unsqueeze(0)
    answer = []
    while len(answer) < max_tokens and (not answer or answer[-1] != eos):
        answer.append(int(model(ids)[0, -1].argmax()))
        ids = torch.cat([ids, torch.tensor([[answer[-1]]])], dim=1)
    return answer


def free_legality(model, examples, token_text, per_variant=50, max_tokens=8):
    """Share of examples where the model's greedy answer, nothing constraining it, is a legal move:
    its tokens up to the end of the turn spell one (what the free-mode agent's answer is, closely).
    By family (chess, janggi), `per_variant` examples of each, spread over the file."""
    model.eval()
    legal_count, total = {}, {}
    for variant, seq, n_answer, _, legal in examples[::max(1, len(examples) // 400)]:  # across the games
        fam = "chess" if variant == "chess" else "janggi"
        if not legal or total.get(fam, 0) >= per_variant:
            continue
        eos = seq[-1]
        spelled = {"".join(token_text[t] for t in move[:-1]) for move in legal}
        answer = [t for t in greedy_answer(model, seq[:len(seq) - n_answer], eos, max_tokens) if t != eos]
        total[fam] = total.get(fam, 0) + 1
        legal_count[fam] = legal_count.get(fam, 0) + int("".join(token_text[t] for t in answer) in spelled)
    model.train()
    return {k: legal_count[k] / total[k] for k in total}


GGUF_NAMES = {"tok_embd.weight": "token_embd.weight", "norm.weight": "output_norm.weight"}
GGUF_BLOCK_NAMES = {"attn_norm.weight": "attn_norm.weight", "wq.weight": "attn_q.weight",
                    "wk.weight": "attn_k.weight", "wv.weight": "attn_v.weight", "wo.weight": "attn_output.weight",
                    "ffn_norm.weight": "ffn_norm.weight", "w_gate.weight": "ffn_gate.weight",
                    "w_up.weight": "ffn_up.weight", "w_down.weight": "ffn_down.weight"}


def gguf_name(key):
    """The GGUF tensor name of a state_dict key ("blocks.0.wq.weight" -> "blk.0.attn_q.weight")."""
    if key in GGUF_NAMES:
        return GGUF_NAMES[key]
    _, layer, rest = key.split(".", 2)
    return f"blk.{layer}.{GGUF_BLOCK_NAMES[rest]}"


def export(model, template, output):
    fill(template, output, {gguf_name(k): v.detach().float().numpy() for k, v in model.state_dict().items()})


def load_gguf_weights(model, path):
    """Starts `model` from the weights of a GGUF file this script wrote (a model to train on)."""
    tensors = read_tensors(path)
    model.load_state_dict({k: torch.from_numpy(tensors[gguf_name(k)]) for k in model.state_dict()})


def shape_of(template):
    meta, _ = read_layout(template)
    a = meta["general.architecture"]
    return Shape(vocab=len(meta["tokenizer.ggml.tokens"]), embd=meta[f"{a}.embedding_length"],
                 layers=meta[f"{a}.block_count"], heads=meta[f"{a}.attention.head_count"],
                 kv_heads=meta[f"{a}.attention.head_count_kv"], ffn=meta[f"{a}.feed_forward_length"],
                 context=meta[f"{a}.context_length"], rope_base=meta[f"{a}.rope.freq_base"],
                 rms_eps=meta[f"{a}.attention.layer_norm_rms_epsilon"])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--train", required=True, help="examples (arena dataset output)")
    ap.add_argument("--held-out", required=True, help="examples never trained on")
    ap.add_argument("--template", required=True, help="the GGUF arena synth laid out (shape, tokenizer)")
    ap.add_argument("--output", required=True, help="the trained GGUF")
    ap.add_argument("--checkpoint", required=True)
    ap.add_argument("--init", help="start from this GGUF's weights (same shape) instead of random ones")
    ap.add_argument("--steps", type=int, default=3000)
    ap.add_argument("--tokens-per-batch", type=int, default=8192)
    ap.add_argument("--lr", type=float, default=2e-3)
    ap.add_argument("--warmup", type=int, default=100)
    ap.add_argument("--aux-weight", type=float, default=0.0,
                    help="weight of the next-token loss on the prompt (0: the answer's loss only)")
    ap.add_argument("--legal-weight", type=float, default=0.0,
                    help="weight of the legality loss (0: none; needs examples with legal moves)")
    ap.add_argument("--save-every", type=int, default=100)
    ap.add_argument("--threads", type=int, default=os.cpu_count())
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)

    shape = shape_of(args.template)
    token_text = read_layout(args.template)[0]["tokenizer.ggml.tokens"]
    model = Transformer(shape)
    if args.init:
        load_gguf_weights(model, args.init)
        print(f"weights from {args.init}", flush=True)
    print(f"model: {model.num_params() / 1e6:.2f}M parameters, {shape}", flush=True)
    train = load_examples(args.train)
    held = load_examples(args.held_out)
    print(f"data: {len(train)} training examples, {len(held)} held out", flush=True)
    decay = [p for n, p in model.named_parameters() if p.dim() == 2]
    no_decay = [p for n, p in model.named_parameters() if p.dim() < 2]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": 0.05}, {"params": no_decay, "weight_decay": 0.0}],
                            lr=args.lr, betas=(0.9, 0.95))
    step, epoch = 0, 0
    if os.path.exists(args.checkpoint):
        ck = torch.load(args.checkpoint)
        model.load_state_dict(ck["model"])
        opt.load_state_dict(ck["opt"])
        step, epoch = ck["step"], ck["epoch"]
        torch.set_rng_state(ck["torch_rng"])
        print(f"resumed at step {step}", flush=True)

    def lr_at(s):
        if s < args.warmup:
            return args.lr * (s + 1) / args.warmup
        p = (s - args.warmup) / max(1, args.steps - args.warmup)
        return args.lr * (0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * min(1.0, p))))

    plan = batches(train, args.tokens_per_batch, random.Random(f"{args.seed}-{epoch}"))
    per_epoch = len(plan)
    started, tokens_done, smooth, smooth_prompt, smooth_legal = time.time(), 0, None, None, None
    while step < args.steps:
        e, i = divmod(step, per_epoch)
        if e != epoch:
            epoch = e
            plan = batches(train, args.tokens_per_batch, random.Random(f"{args.seed}-{epoch}"))
        ids, targets, prompt_targets, legal = collate(train, plan[i % len(plan)], shape.vocab)
        for g in opt.param_groups:
            g["lr"] = lr_at(step)
        loss, answer_loss, prompt_loss, legal_loss = loss_of(model, ids, targets, prompt_targets, legal,
                                                             args.aux_weight, args.legal_weight)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        step += 1
        tokens_done += ids.numel()
        # the answer's loss: comparable between runs with and without the prompt's
        smooth = smoothed(smooth, answer_loss.item())
        if prompt_loss is not None:
            smooth_prompt = smoothed(smooth_prompt, prompt_loss.item())
        if legal_loss is not None:
            smooth_legal = smoothed(smooth_legal, legal_loss.item())
        if step % 20 == 0:
            rate = tokens_done / (time.time() - started)
            eta = (args.steps - step) * ids.numel() / rate
            prompt_part = "" if smooth_prompt is None else f" prompt loss {smooth_prompt:.3f}"
            prompt_part += "" if smooth_legal is None else f" legality loss {smooth_legal:.3f}"
            print(f"step {step}/{args.steps} epoch {epoch} loss {smooth:.3f}{prompt_part} lr {lr_at(step):.2e} "
                  f"{rate:.0f} tokens/s ETA {eta / 60:.1f} min", flush=True)
        if step % args.save_every == 0 or step == args.steps:
            acc = move_accuracy(model, held)
            print(f"step {step}: held-out exact-move agreement "
                  + ", ".join(f"{k} {v:.1%}" for k, v in sorted(acc.items())), flush=True)
            if held and held[0][4]:
                free = free_legality(model, held, token_text)
                print(f"step {step}: held-out greedy free answers legal "
                      + ", ".join(f"{k} {v:.1%}" for k, v in sorted(free.items())), flush=True)
            torch.save({"model": model.state_dict(), "opt": opt.state_dict(), "step": step, "epoch": epoch,
                        "torch_rng": torch.get_rng_state()}, args.checkpoint + ".tmp")
            os.replace(args.checkpoint + ".tmp", args.checkpoint)
            export(model, args.template, args.output)
    print(f"wrote {args.output}", flush=True)


if __name__ == "__main__":
    main()
