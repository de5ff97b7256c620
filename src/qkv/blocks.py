"""How the attention kernels cut their work into blocks: the sizes and bounds a reader of the benchmarks needs.

`attention_output` and `scaled_dot_product_attention` never hold more scores than a block at a time. This
module names the numbers that decide those blocks, so that pages and notebooks can explain the measured
times without reaching into the kernels' private modules:

- `DECODE_ROWS`: at most this many query rows (and no causal mask) take the decode path (qkv/_decode.py),
  one product over every head for q·kᵀ and one for weights·v.
- `SCORE_BOUND`, `OUTPUT_ROWS`, `OUTPUT_CAUSAL_ROWS`, `OUTPUT_KEYS`: when no score can exceed `SCORE_BOUND`
  (by Cauchy–Schwarz, scale·max‖q‖·max‖k‖), `attention_output` skips the row maxima and takes blocks of
  `OUTPUT_ROWS` query rows (`OUTPUT_CAUSAL_ROWS` with a causal mask) × `OUTPUT_KEYS` keys (qkv/_output_blocks.py).
- `block_rows` and `causal_work_share`: the row-maximum kernel's rows per block, and the share of the n_q·n_k
  scores it computes with a causal mask, diagonal blocks included (qkv/_kernel.py).

>>> from qkv.blocks import DECODE_ROWS, causal_work_share
>>> DECODE_ROWS
16
>>> causal_work_share(1024, 1024)  # half the square, plus the upper half of each 128-row diagonal block
0.5625
"""

from __future__ import annotations

from qkv._decode import DECODE_ROWS
from qkv._kernel import block_rows, causal_work_share
from qkv._output_blocks import CAUSAL_ROWS as OUTPUT_CAUSAL_ROWS
from qkv._output_blocks import KEYS as OUTPUT_KEYS
from qkv._output_blocks import ROWS as OUTPUT_ROWS
from qkv._output_blocks import SCORE_BOUND

__all__ = ["DECODE_ROWS", "OUTPUT_CAUSAL_ROWS", "OUTPUT_KEYS", "OUTPUT_ROWS", "SCORE_BOUND", "block_rows",
           "causal_work_share"]
