# generated from chapters/16-austen-model.nw; edit the book, not this file
"""Fixtures for the small GPT: the loss and gradient of a tiny model, and two
AdamW steps.  Usage: /usr/bin/python3 tests/make_lm_golden.py tests/golden"""
import os
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
from lm_eval_torch import GPT  # noqa: E402  (the model of the PyTorch check below)

V, T, E, H, N, B = 64, 16, 32, 4, 2, 2
F = 4 * E


def decays(name):
    return name.startswith("blocks.") and name.endswith("weight") and "norm" not in name


def save(directory, name, array):
    np.save(os.path.join(directory, name + ".npy"), np.asarray(array, dtype=np.float32))


def main(root):
    directory = os.path.join(root, "lm_tiny")
    os.makedirs(directory, exist_ok=True)
    torch.manual_seed(26)
    model = GPT(V, T, E, H, N, F).double().train()
    with torch.no_grad():
        for name, p in model.named_parameters():
            if name.endswith("norm1.weight") or name.endswith("norm2.weight") or \
                    name == "norm.weight":
                p.uniform_(0.8, 1.2)
            elif p.dim() == 1:
                p.uniform_(-0.1, 0.1)
            else:
                p.normal_(0.0, 0.2)
            p.copy_(p.float().double())            # exactly representable in float32
    tokens = torch.randint(0, V, (B, T + 1))
    x, y = tokens[:, :T], tokens[:, 1:]
    logits = model(x)
    loss = torch.nn.functional.cross_entropy(logits.reshape(-1, V), y.reshape(-1))
    loss.backward()
    names = [n for n, _ in model.named_parameters()]
    assert names == list(model.state_dict().keys())
    flat = torch.cat([p.detach().reshape(-1) for p in model.parameters()])
    grad = torch.cat([p.grad.reshape(-1) for p in model.parameters()])
    save(directory, "params", flat)
    save(directory, "tokens", x)
    save(directory, "targets", y)
    save(directory, "loss", loss.detach().reshape(1))
    save(directory, "grads", grad)
    save(directory, "logits", logits.detach())
    # Two AdamW steps in float32 from the same parameters.
    params = [p.detach().float().clone().requires_grad_(True) for p in model.parameters()]
    grads = [p.grad.float().clone() for p in model.parameters()]
    groups = [{"params": [q for n, q in zip(names, params) if decays(n)], "weight_decay": 0.1},
              {"params": [q for n, q in zip(names, params) if not decays(n)],
               "weight_decay": 0.0}]
    opt = torch.optim.AdamW(groups, lr=3e-3, betas=(0.9, 0.95), eps=1e-8)
    for scale in (1.0, -0.5):
        for q, g in zip(params, grads):
            q.grad = g * scale
        opt.step()
    save(directory, "adamw_after", torch.cat([q.detach().reshape(-1) for q in params]))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "tests/golden")
