# generated from chapters/20-command.nw, chapters/39-tests-backward.nw, chapters/39-tests-transformer-block.nw; edit the book, not this file
"""Golden cases for the mha command: torch.nn.MultiheadAttention on fixed
inputs.  Usage: python3 tests/make_golden.py tests/golden"""
import os
import sys

import numpy as np
import torch

def make_case(root, name, seed, B, L, S, E, H, bias=True, cross=False,
              attn_mask=None, key_padding_mask=None, dtype=torch.float32,
              mask_saved_as=None, versions=None):
    torch.manual_seed(seed)
    layer = torch.nn.MultiheadAttention(E, H, bias=bias, batch_first=True)
    layer = layer.to(dtype).eval()
    with torch.no_grad():
        if bias:
            layer.in_proj_bias.uniform_(-0.5, 0.5)
            layer.out_proj.bias.uniform_(-0.5, 0.5)
        query = torch.randn(B, L, E, dtype=dtype)
        key = torch.randn(B, S, E, dtype=dtype) if cross else query
        value = torch.randn(B, S, E, dtype=dtype) if cross else query
        out, weights = layer(query, key, value, attn_mask=attn_mask,
                             key_padding_mask=key_padding_mask,
                             need_weights=True, average_attn_weights=False)
    directory = os.path.join(root, name)
    os.makedirs(directory, exist_ok=True)
    files = {"query": query, "in_proj_weight": layer.in_proj_weight,
             "out_proj_weight": layer.out_proj.weight,
             "expected_out": out, "expected_attn_weights": weights}
    if cross:
        files.update(key=key, value=value)
    if bias:
        files.update(in_proj_bias=layer.in_proj_bias, out_proj_bias=layer.out_proj.bias)
    if attn_mask is not None:
        files["attn_mask"] = attn_mask
    if key_padding_mask is not None:
        files["key_padding_mask"] = key_padding_mask
    generator = torch.Generator().manual_seed(seed + 1000)
    grad_out = torch.randn(B, L, E, dtype=dtype, generator=generator)
    q = query.clone().requires_grad_(True)
    k = key.clone().requires_grad_(True) if cross else q
    v = value.clone().requires_grad_(True) if cross else q
    layer.zero_grad()
    y, _ = layer(q, k, v, attn_mask=attn_mask, key_padding_mask=key_padding_mask,
                 need_weights=False)
    y.backward(grad_out)
    files.update(grad_out=grad_out, expected_grad_query=q.grad,
                 expected_grad_in_proj_weight=layer.in_proj_weight.grad,
                 expected_grad_out_proj_weight=layer.out_proj.weight.grad)
    if cross:
        files.update(expected_grad_key=k.grad, expected_grad_value=v.grad)
    if bias:
        files.update(expected_grad_in_proj_bias=layer.in_proj_bias.grad,
                     expected_grad_out_proj_bias=layer.out_proj.bias.grad)
    for file, tensor in files.items():
        array = tensor.detach().numpy()
        if mask_saved_as and file in mask_saved_as:
            array = array.astype(mask_saved_as[file])
        save(os.path.join(directory, file + ".npy"), array, (versions or {}).get(file))
def save(path, array, version=None):
    with open(path, "wb") as f:
        np.lib.format.write_array(f, np.ascontiguousarray(array), version=version)
def make_block_case(root, name, seed, B, L, E, H, F, src_mask=None, key_padding_mask=None):
    torch.manual_seed(seed)
    layer = torch.nn.TransformerEncoderLayer(E, H, F, dropout=0.0, activation="gelu",
                                             batch_first=True, norm_first=True).eval()
    with torch.no_grad():
        for tensor_name, tensor in layer.named_parameters():
            if tensor_name.startswith("norm") and tensor_name.endswith("weight"):
                tensor.uniform_(0.5, 1.5)
            elif tensor_name.endswith("bias"):
                tensor.uniform_(-0.5, 0.5)
    src = torch.randn(B, L, E)
    grad_out = torch.randn(B, L, E, generator=torch.Generator().manual_seed(seed + 1000))
    files = dict(layer.state_dict(), src=src, grad_out=grad_out)
    if src_mask is not None:
        files["src_mask"] = src_mask
    if key_padding_mask is not None:
        files["src_key_padding_mask"] = key_padding_mask
    for dtype, prefix in ((torch.float32, "expected_"), (torch.float64, "expected64_")):
        copy = torch.nn.TransformerEncoderLayer(E, H, F, dropout=0.0, activation="gelu",
                                                batch_first=True, norm_first=True).to(dtype).eval()
        copy.load_state_dict(layer.state_dict())
        x = src.detach().to(dtype).clone().requires_grad_(True)
        mask = src_mask.to(dtype) if src_mask is not None and src_mask.is_floating_point() \
            else src_mask
        y = copy(x, src_mask=mask, src_key_padding_mask=key_padding_mask)
        y.backward(grad_out.to(dtype))
        files[prefix + "out"] = y
        files[prefix + "grad_src"] = x.grad
        for tensor_name, tensor in copy.named_parameters():
            files[prefix + "grad_" + tensor_name] = tensor.grad
    directory = os.path.join(root, name)
    os.makedirs(directory, exist_ok=True)
    for file, tensor in files.items():
        save(os.path.join(directory, file + ".npy"), tensor.detach().numpy())
def causal(n):
    return torch.triu(torch.ones(n, n, dtype=torch.bool), diagonal=1)


def padding(lengths, S):
    return torch.arange(S)[None, :] >= torch.tensor(lengths)[:, None]


def float_mask(L, S):
    mask = torch.randn(L, S, generator=torch.Generator().manual_seed(60))
    mask[0, 1] = mask[2, 3] = float("-inf")
    return mask


def filled_rows(n, padded):
    mask = torch.zeros(n, n)
    mask[causal(n)] = -1e9
    mask[:, :padded] += -1e9
    mask[64] = -1e9
    mask[30], mask[31] = 3e38, -3e38
    return mask


def make_all(root):
    make_case(root, "self_attention", 1, B=2, L=5, S=5, E=8, H=2)
    make_case(root, "cross_attention", 2, B=2, L=3, S=6, E=8, H=4, cross=True)
    make_case(root, "no_bias", 3, B=1, L=4, S=4, E=6, H=3, bias=False)
    make_case(root, "odd_sizes", 4, B=2, L=1, S=7, E=15, H=5, cross=True)
    make_case(root, "causal_mask", 5, B=2, L=6, S=6, E=8, H=2, attn_mask=causal(6))
    make_case(root, "float_mask", 6, B=1, L=4, S=5, E=8, H=2, cross=True,
              attn_mask=float_mask(4, 5))
    make_case(root, "key_padding_mask", 7, B=3, L=5, S=5, E=8, H=2,
              key_padding_mask=padding([5, 3, 1], 5))
    make_case(root, "combined_masks", 8, B=2, L=5, S=5, E=8, H=4,
              attn_mask=causal(5), key_padding_mask=padding([5, 2], 5),
              mask_saved_as={"key_padding_mask": np.uint8})
    make_case(root, "float64", 9, B=2, L=4, S=4, E=8, H=2, dtype=torch.float64,
              versions={"query": (2, 0), "in_proj_weight": (3, 0)})
    make_case(root, "large_float_mask", 10, B=2, L=70, S=70, E=16, H=2,
              attn_mask=filled_rows(70, padded=5))
    make_case(root, "large_constant_mask", 11, B=1, L=66, S=70, E=16, H=4, cross=True,
              attn_mask=float_mask(66, 70) + 1e6)


def blocked_half(L, seed):
    mask = torch.randn(L, L, generator=torch.Generator().manual_seed(seed))
    mask[causal(L)] = -1e9
    return mask


def make_block_cases(root):
    make_block_case(root, "block_plain", 101, B=2, L=5, E=8, H=2, F=12)
    make_block_case(root, "block_causal", 102, B=2, L=6, E=8, H=2, F=16, src_mask=causal(6))
    make_block_case(root, "block_key_padding", 103, B=3, L=5, E=8, H=4, F=12,
                    key_padding_mask=padding([5, 3, 1], 5))
    make_block_case(root, "block_float_mask", 104, B=2, L=7, E=12, H=3, F=20,
                    src_mask=blocked_half(7, 105))
    make_block_case(root, "block_tiles", 106, B=2, L=70, E=15, H=3, F=22,
                    src_mask=causal(70), key_padding_mask=padding([70, 61], 70))
    make_block_case(root, "block_float_mask_tiles", 107, B=1, L=65, E=8, H=2, F=12,
                    src_mask=blocked_half(65, 108))


make_attention_cases = make_all


def make_all(root):
    make_attention_cases(root)
    make_block_cases(root)

if __name__ == "__main__":
    make_all(sys.argv[1] if len(sys.argv) > 1 else "tests/golden")
