"""The attention math of the article 《Transformer 原理（二）：Self-Attention 深度拆解》, small and exact.

`scaled_dot_product_attention(q, k, v, *, mask=None, scale=None, is_causal=False, enable_gqa=False)`
takes the options of PyTorch's `torch.nn.functional.scaled_dot_product_attention`, by keyword
only, and returns `(output, weights)` as a named tuple; `attention_output` takes the same options and
returns only the output, without making the n×n weights (what a model runs); `tiled_attention`
takes the same options (and `block_size`) and returns the output. float16 is computed in float32 and returned in float16.
Against PyTorch's signature: the mask is `mask=`, not `attn_mask=`; there is no `dropout_p` (no
dropout: these functions compute, they do not train); and every option is keyword-only, where
PyTorch also takes `attn_mask`, `dropout_p` and `is_causal` by position.

Errors follow one rule:

- TypeError: an argument is the wrong kind of thing: a str or complex or masked array
  (`numpy.ma.MaskedArray`, whose mask would be ignored), an int or float mask (masks are
  boolean), a float, bool or str where a count such as `block_size` belongs, a flag that is
  not True/False, a scale that is not a real number.
- ValueError: the right kind with a wrong value: shapes that do not fit, NaN or inf in the
  inputs, results that overflow the dtype, a count of 0, a scale that is not finite and > 0,
  a row with every key masked.

"The same numbers" as PyTorch means the same to rounding, not bit for bit: the sums are taken in
another order (in blocks, by another BLAS), so the last bits of a float32 result may differ. Where
qkv refuses what PyTorch computes (both give the same numbers everywhere else):

- a query row with every key masked, or no keys at all (n_k = 0): PyTorch returns zeros for
  that row; qkv raises ValueError naming the row, since softmax over no keys is undefined.
- `scale=0` (or d_k = 0): PyTorch returns the plain mean of v (all scores are 0); qkv raises
  ValueError, as for a negative scale: the article's scale is 1/√d_k > 0.
- `mask=` together with `is_causal=True`: both raise (ValueError here, RuntimeError there).
- an additive float mask (0 where a key may be seen, -inf or a penalty where not): PyTorch adds
  it to the scores; qkv takes boolean masks only (TypeError), True = may attend.
- NaN or inf in q, k or v: PyTorch computes, and NaN spreads through the rows it touches; qkv
  raises ValueError naming the argument and the first bad index.
- scores or outputs that overflow the dtype (finite float32 inputs whose q·kᵀ·scale passes
  3.4e38): PyTorch returns NaN or inf; qkv raises ValueError.
- `attention_scores` with no queries (n_q = 0) raises ValueError, although the attention
  functions accept n_q = 0 and return an empty result.

An empty batch (a leading dimension of 0) or n_q = 0 gives empty results, as in PyTorch.

Where qkv accepts or returns something PyTorch does not:

- `weights` is a read-only view (numpy's broadcast of the computed weights to the batch shape);
  copy it (`weights.copy()`) to change it.
- Inputs of different dtypes are promoted as numpy promotes them (float32 with float64 computes
  in float64); PyTorch raises.
- A 1-D mask (n_k,) is accepted and broadcasts over the query rows, as numpy broadcasts.
- `np.longdouble` inputs are computed in long double; `np.bool_` flags (`is_causal=np.True_`)
  and any real scale (a `fractions.Fraction`, a numpy float) are accepted.
- bfloat16 is refused with a TypeError (numpy has no bfloat16); PyTorch computes it.

Where qkv behaves differently while it computes:

- A call large enough for two threads (2²⁰ scores or more, two cores) sets the thread count of
  numpy's OpenBLAS to 1 for the whole process while it runs and puts it back after
  (qkv/_threads.py): a matrix product another thread makes meanwhile runs on one thread.
- `tiled_attention` at its default block size (1,024) takes n ≤ 1,024 keys in one tile, so up to
  n = 1,024 it saves no memory against `scaled_dot_product_attention`; pass a smaller
  `block_size` to see the tiles.

>>> import qkv
>>> qkv.scaled_dot_product_attention([[1.0, 0.0]], [[1.0, 0.0], [0.0, 1.0]], [[1.0], [0.0]]).weights.round(2)
array([[0.67, 0.33]])
>>> qkv.tiled_attention([[1.0]], [[1.0]], [[1.0]], block_size=2.0)
Traceback (most recent call last):
...
TypeError: block_size must be a positive int, got 2.0 of type float
>>> qkv.tiled_attention([[1.0]], [[1.0]], [[1.0]], block_size=0)
Traceback (most recent call last):
...
ValueError: block_size must be a positive int, got 0
"""

from __future__ import annotations

# The modules too: the article's material (examples), the deep dives (analysis, complexity, kv_cache, tiled).
from qkv import analysis, complexity, examples, kv_cache, tiled
from qkv.attention import Attention, attention_output, attention_scores, plain_attention, scaled_dot_product_attention
from qkv.kv_cache import kv_cache_bytes
from qkv.masks import causal_mask
from qkv.projections import cross_attention, project, self_attention
from qkv.softmax import softmax
from qkv.tiled import online_softmax_steps, tiled_attention

__all__ = [
    "softmax",
    "attention_scores",
    "scaled_dot_product_attention",
    "attention_output",
    "plain_attention",
    "Attention",
    "causal_mask",
    "project",
    "self_attention",
    "cross_attention",
    "analysis",
    "complexity",
    "examples",
    "tiled_attention",
    "online_softmax_steps",
    "kv_cache_bytes",
    "tiled",
    "kv_cache",
]
