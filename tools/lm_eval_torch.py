# generated from chapters/16-austen-model.nw; edit the book, not this file
"""Scores a text with a model folder of `mha lm train` in PyTorch, printing
`mha lm eval`'s line.  Usage:
  /usr/bin/python3 tools/lm_eval_torch.py DIR --text FILE [--context T] [--float64]
  /usr/bin/python3 tools/lm_eval_torch.py DIR --encode TEXT     (the token ids)"""
import argparse
import math
import os

import numpy as np
import torch

PIECE_MAX = 64


def is_letter(c):
    return 97 <= c <= 122 or 65 <= c <= 90 or c >= 0x80


def is_digit(c):
    return 48 <= c <= 57


def piece_length(text, at):
    n = len(text) - at
    i = 1 if text[at] == 32 and n > 1 and (is_letter(text[at + 1]) or
                                           is_digit(text[at + 1])) else 0
    same = is_letter if is_letter(text[at + i]) else is_digit if is_digit(text[at + i]) else None
    if same is None:
        return 1
    while i < n and i < PIECE_MAX and same(text[at + i]):
        i += 1
    return i


def read_merges(path):
    with open(path, encoding="ascii") as f:
        lines = f.read().split("\n")
    assert lines[0] == "mha-bpe-merges 1" and lines[-1] == "", path + ": not a merges file"
    return {tuple(int(w) for w in line.split(" ")): rank for rank, line in enumerate(lines[1:-1])}


def encode_piece(ranks, piece):
    sym = list(piece)
    while True:
        best, where = None, 0
        for i in range(len(sym) - 1):
            rank = ranks.get((sym[i], sym[i + 1]))
            if rank is not None and (best is None or rank < best):
                best, where = rank, i
        if best is None:
            return sym
        left, right, merged, i = sym[where], sym[where + 1], [], 0
        while i < len(sym):
            if i + 1 < len(sym) and sym[i] == left and sym[i + 1] == right:
                merged.append(256 + best)
                i += 2
            else:
                merged.append(sym[i])
                i += 1
        sym = merged


def encode(ranks, text):
    ids, known, at = [], {}, 0
    while at < len(text):
        length = piece_length(text, at)
        piece = text[at:at + length]
        if piece not in known:
            known[piece] = encode_piece(ranks, piece)
        ids += known[piece]
        at += length
    return ids
class GPT(torch.nn.Module):
    def __init__(self, V, T, E, H, N, F):
        super().__init__()
        self.tok_emb = torch.nn.Embedding(V, E)
        self.pos_emb = torch.nn.Embedding(T, E)
        self.blocks = torch.nn.ModuleList([torch.nn.TransformerEncoderLayer(
            E, H, F, dropout=0.0, activation="gelu", batch_first=True, norm_first=True)
            for _ in range(N)])
        self.norm = torch.nn.LayerNorm(E)

    def forward(self, x):
        L = x.shape[1]
        h = self.tok_emb(x) + self.pos_emb.weight[:L]
        mask = torch.triu(torch.full((L, L), float("-inf"), dtype=h.dtype), 1)
        for block in self.blocks:
            h = block(h, src_mask=mask)
        return self.norm(h) @ self.tok_emb.weight.T


def load(directory, dtype):
    sizes = {}
    with open(os.path.join(directory, "model.txt"), encoding="ascii") as f:
        for line in f:
            key, _, value = line.rstrip("\n").partition(" ")
            if key in ("layers", "heads", "vocab", "context", "dim", "hidden"):
                sizes[key] = int(value)
    model = GPT(sizes["vocab"], sizes["context"], sizes["dim"], sizes["heads"],
                sizes["layers"], sizes["hidden"])
    state = {name: torch.from_numpy(np.load(os.path.join(directory, name + ".npy")))
             for name in model.state_dict()}
    model.load_state_dict(state)
    return model.to(dtype).eval(), sizes["context"]
def windows(n, T):
    S, start, made = max(T // 2, 1), 0, []
    while True:
        L = min(n - 1 - start, T)
        made.append((start, L))
        if start + L == n - 1:
            return made
        start += S


def sliding_loss(model, ids, T):
    made, total, done = windows(len(ids), T), 0.0, 0
    with torch.no_grad():
        for k in range(0, len(made), 16):
            for L in sorted({L for _, L in made[k:k + 16]}, reverse=True):
                group = [s for s, length in made[k:k + 16] if length == L]
                x = torch.tensor([ids[s:s + L] for s in group])
                y = torch.tensor([ids[s + 1:s + 1 + L] for s in group])
                logp = torch.log_softmax(model(x).to(torch.float64), dim=-1)
                nll = -logp.gather(2, y.unsqueeze(2)).squeeze(2)
                for b, s in enumerate(group):      # targets past the previous window's end
                    total += nll[b, max(done - s, 0):].sum().item()
                    done = s + L
    return total, done
def main():
    parser = argparse.ArgumentParser(description="mha lm eval in PyTorch")
    parser.add_argument("model")
    parser.add_argument("--text")
    parser.add_argument("--encode")
    parser.add_argument("--context", type=int, default=0)
    parser.add_argument("--float64", action="store_true")
    args = parser.parse_args()
    ranks = read_merges(os.path.join(args.model, "merges.txt"))
    if args.encode is not None:
        print(" ".join(str(i) for i in encode(ranks, os.fsencode(args.encode))))
        return
    if args.text is None:
        parser.error("--text or --encode is required")
    model, context = load(args.model, torch.float64 if args.float64 else torch.float32)
    T = args.context or context
    if not 2 <= T <= context:
        parser.error("--context: %d is not in 2..%d" % (T, context))
    with open(args.text, "rb") as f:
        text = f.read()
    ids = encode(ranks, text)
    if len(ids) < 2:
        parser.error("%s: %d tokens; at least 2 are needed" % (args.text, len(ids)))
    total, scored = sliding_loss(model, ids, T)
    print("tokens=%d bytes=%d loss=%.6f bits_per_char=%.6f context=%d stride=%d" % (
        len(ids), len(text), total / scored, total / math.log(2) / len(text), T, max(T // 2, 1)))


if __name__ == "__main__":
    main()
