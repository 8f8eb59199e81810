"""The arena default model: a small llama-architecture transformer (RMSNorm, rotary positions as
llama.cpp's LLAMA rope rotates them -- adjacent pairs --, grouped attention, SwiGLU), written so
that its weights export to GGUF without any permutation."""
import math
from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F


@dataclass
class Shape:
    vocab: int = 1024
    embd: int = 256
    layers: int = 4
    heads: int = 8
    kv_heads: int = 4
    ffn: int = 768
    context: int = 512
    rope_base: float = 10000.0
    rms_eps: float = 1e-5

    @property
    def head_dim(self):
        return self.embd // self.heads


class RMSNorm(nn.Module):
    def __init__(self, dim, eps):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


def rope_tables(shape, length):
    """cos/sin of llama.cpp's rope (mode 0): pair i = (x[2i], x[2i+1]) turns by pos * base^(-2i/d)."""
    half = shape.head_dim // 2
    freqs = shape.rope_base ** (-torch.arange(half, dtype=torch.float32) * 2.0 / shape.head_dim)
    angles = torch.arange(length, dtype=torch.float32)[:, None] * freqs[None, :]
    return angles.cos(), angles.sin()


def apply_rope(x, cos, sin):
    """x: [batch, heads, seq, head_dim]; rotates adjacent pairs."""
    x = x.view(*x.shape[:-1], -1, 2)
    a, b = x[..., 0], x[..., 1]
    return torch.stack((a * cos - b * sin, a * sin + b * cos), dim=-1).flatten(-2)


class Block(nn.Module):
    def __init__(self, s):
        super().__init__()
        self.s = s
        d, hd = s.embd, s.head_dim
        self.attn_norm = RMSNorm(d, s.rms_eps)
        self.wq = nn.Linear(d, s.heads * hd, bias=False)
        self.wk = nn.Linear(d, s.kv_heads * hd, bias=False)
        self.wv = nn.Linear(d, s.kv_heads * hd, bias=False)
        self.wo = nn.Linear(s.heads * hd, d, bias=False)
        self.ffn_norm = RMSNorm(d, s.rms_eps)
        self.w_gate = nn.Linear(d, s.ffn, bias=False)
        self.w_up = nn.Linear(d, s.ffn, bias=False)
        self.w_down = nn.Linear(s.ffn, d, bias=False)

    def forward(self, x, cos, sin, mask):
        s = self.s
        b, t, _ = x.shape
        h = self.attn_norm(x)
        q = self.wq(h).view(b, t, s.heads, s.head_dim).transpose(1, 2)
        k = self.wk(h).view(b, t, s.kv_heads, s.head_dim).transpose(1, 2)
        v = self.wv(h).view(b, t, s.kv_heads, s.head_dim).transpose(1, 2)
        q, k = apply_rope(q, cos, sin), apply_rope(k, cos, sin)
        rep = s.heads // s.kv_heads
        k = k.repeat_interleave(rep, dim=1)
        v = v.repeat_interleave(rep, dim=1)
        att = (q @ k.transpose(-2, -1)) / math.sqrt(s.head_dim) + mask
        y = F.softmax(att, dim=-1) @ v
        x = x + self.wo(y.transpose(1, 2).reshape(b, t, -1))
        h = self.ffn_norm(x)
        return x + self.w_down(F.silu(self.w_gate(h)) * self.w_up(h))


class Transformer(nn.Module):
    def __init__(self, s):
        super().__init__()
        self.s = s
        self.tok_embd = nn.Embedding(s.vocab, s.embd)
        self.blocks = nn.ModuleList(Block(s) for _ in range(s.layers))
        self.norm = RMSNorm(s.embd, s.rms_eps)
        cos, sin = rope_tables(s, s.context)
        self.register_buffer("cos", cos, persistent=False)
        self.register_buffer("sin", sin, persistent=False)
        for name, p in self.named_parameters():
            if p.dim() == 2:
                std = 0.02 / math.sqrt(2 * s.layers) if name.endswith(("wo.weight", "w_down.weight")) else 0.02
                nn.init.normal_(p, 0.0, std)

    def hidden(self, ids):
        """ids: [batch, seq] (right padded). The final normed hidden state of every position."""
        t = ids.shape[1]
        mask = torch.full((t, t), float("-inf")).triu(1)
        x = self.tok_embd(ids)
        cos, sin = self.cos[:t], self.sin[:t]
        for blk in self.blocks:
            x = blk(x, cos, sin, mask)
        return self.norm(x)

    def logits(self, h):
        """Logits of hidden states: the output projection is the token embedding (tied)."""
        return h @ self.tok_embd.weight.T

    def forward(self, ids):
        """ids: [batch, seq] (right padded). Logits of every position."""
        return self.logits(self.hidden(ids))

    def num_params(self):
        return sum(p.numel() for p in self.parameters())
