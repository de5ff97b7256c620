"""Oracle: qkv agrees with torch.nn.functional.scaled_dot_product_attention on random shapes and masks."""

from __future__ import annotations

import numpy as np
import pytest

from qkv import attention_output, causal_mask, scaled_dot_product_attention, tiled_attention

TOLERANCE = 1e-6
N_CASES = 100
# Largest |qkv − torch| seen per dtype, reported when the module finishes.
LARGEST_ERROR: dict[str, float] = {"float32": 0.0, "float64": 0.0}


@pytest.fixture(scope="module", autouse=True)
def report_largest_error(request: pytest.FixtureRequest):
    yield
    line = "largest |qkv - torch| error: " + ", ".join(f"{dtype} {error:.3g}" for dtype, error in LARGEST_ERROR.items())
    # Teardown output is captured like test output; lift the capture so `-q` runs show the line too.
    capture = request.config.pluginmanager.get_plugin("capturemanager")
    reporter = request.config.pluginmanager.get_plugin("terminalreporter")
    if capture is None or reporter is None:
        print(line)
        return
    with capture.global_and_fixture_disabled():
        reporter.write_line("")
        reporter.write_line(line)


def assert_close(ours: np.ndarray, theirs, dtype: str) -> None:
    """Assert max abs error <= TOLERANCE, and remember the largest error seen."""
    assert ours.shape == tuple(theirs.shape)
    error = float(np.max(np.abs(ours.astype(np.float64) - theirs.double().numpy())))
    LARGEST_ERROR[dtype] = max(LARGEST_ERROR[dtype], error)
    assert error <= TOLERANCE, f"max abs error {error:.3g} > {TOLERANCE}"


def random_case(seed: int, dtype: str) -> dict:
    """Random batch/head dims (some broadcast), n_q ≠ n_k, d_v ≠ d_k, and a random kind of mask."""
    rng = np.random.default_rng(seed)
    batch = tuple(int(n) for n in rng.integers(1, 4, size=rng.integers(0, 3)))
    n_q, n_k = (int(n) for n in rng.integers(1, 12, size=2))
    d_k, d_v = (int(n) for n in rng.integers(1, 33, size=2))
    kind = ("none", "random", "causal", "scale")[seed % 4]
    if kind == "causal":
        n_k = n_q
    # A leading dim of size 1 in k/v must broadcast against q's.
    kv_batch = tuple(1 if rng.random() < 0.3 else n for n in batch)
    case = {
        "q": rng.normal(size=batch + (n_q, d_k)).astype(dtype),
        "k": rng.normal(size=kv_batch + (n_k, d_k)).astype(dtype),
        "v": rng.normal(size=kv_batch + (n_k, d_v)).astype(dtype),
        "mask": None,
        "scale": None,
    }
    if kind == "random":
        mask = rng.random(batch + (n_q, n_k)) < 0.6
        mask[..., rng.integers(n_k)] = True  # no query row may be fully masked
        case["mask"] = mask
    elif kind == "causal":
        case["mask"] = causal_mask(n_q)
    elif kind == "scale":
        # Explicit scales around 1/√d_k keep the logits O(1). Much larger logits amplify float32
        # rounding through exp(): both qkv and torch then drift ~1e-6 from the float64 answer.
        case["scale"] = float(rng.uniform(0.05, 2.0) / np.sqrt(d_k))
    return case


def torch_attention(torch, case: dict) -> tuple:
    """torch's fused attention, plus its weights computed as softmax(QKᵀ·scale masked)."""
    shape = np.broadcast_shapes(case["q"].shape[:-2], case["k"].shape[:-2])
    q, k, v = (
        torch.from_numpy(np.array(np.broadcast_to(case[name], shape + case[name].shape[-2:])))
        for name in ("q", "k", "v")
    )
    mask = None if case["mask"] is None else torch.from_numpy(np.array(case["mask"]))
    output = torch.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=mask, scale=case["scale"])
    scale = case["scale"] if case["scale"] is not None else 1.0 / np.sqrt(q.shape[-1])
    scores = q @ k.transpose(-2, -1) * scale
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    return output, torch.softmax(scores, dim=-1)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("seed", range(N_CASES))
def test_matches_torch(torch, seed: int, dtype: str) -> None:
    case = random_case(seed, dtype)
    output, weights = scaled_dot_product_attention(**case)
    assert output.dtype == dtype and weights.dtype == dtype
    torch_output, torch_weights = torch_attention(torch, case)
    assert_close(output, torch_output, dtype)
    assert_close(weights, torch_weights, dtype)
    assert_close(attention_output(**case), torch_output, dtype)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_causal_mask_matches_torch_is_causal(torch, dtype: str) -> None:
    rng = np.random.default_rng(99)
    q, k, v = (rng.normal(size=(2, 4, 9, 16)).astype(dtype) for _ in range(3))
    output, _ = scaled_dot_product_attention(q, k, v, mask=causal_mask(9))
    expected = torch.nn.functional.scaled_dot_product_attention(
        *(torch.from_numpy(a) for a in (q, k, v)), is_causal=True
    )
    assert_close(output, expected, dtype)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize(("n_q", "n_k"), [(9, 9), (4, 11), (11, 4)])
def test_is_causal_matches_torch_also_when_n_q_and_n_k_differ(torch, dtype: str, n_q: int, n_k: int) -> None:
    rng = np.random.default_rng(n_q * 100 + n_k)
    q = rng.normal(size=(2, 3, n_q, 16)).astype(dtype)
    k, v = (rng.normal(size=(2, 3, n_k, 16)).astype(dtype) for _ in range(2))
    expected = torch.nn.functional.scaled_dot_product_attention(*(torch.from_numpy(a) for a in (q, k, v)), is_causal=True)
    assert_close(scaled_dot_product_attention(q, k, v, is_causal=True).output, expected, dtype)
    assert_close(attention_output(q, k, v, is_causal=True), expected, dtype)
    assert_close(tiled_attention(q, k, v, is_causal=True, block_size=3), expected, dtype)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize(("heads", "kv_heads"), [(8, 2), (8, 1), (4, 4)])
@pytest.mark.parametrize("n_q", [1, 7, 40])  # 1 and 7 take attention_output's decode path, 40 its key blocks
def test_enable_gqa_matches_torch(torch, dtype: str, heads: int, kv_heads: int, n_q: int) -> None:
    rng = np.random.default_rng(heads * 10 + kv_heads + n_q)
    q = rng.normal(size=(2, heads, n_q, 16)).astype(dtype)
    k, v = (rng.normal(size=(2, kv_heads, 9, 16)).astype(dtype) for _ in range(2))
    expected = torch.nn.functional.scaled_dot_product_attention(*(torch.from_numpy(a) for a in (q, k, v)), enable_gqa=True)
    assert_close(scaled_dot_product_attention(q, k, v, enable_gqa=True).output, expected, dtype)
    assert_close(attention_output(q, k, v, enable_gqa=True), expected, dtype)
    assert_close(tiled_attention(q, k, v, enable_gqa=True, block_size=4), expected, dtype)


# Masks of grouped-query attention: one key row for all, per query row, per head, per batch and head and row.
GQA_MASKS = [(300,), (3, 300), (8, 1, 300), (2, 8, 3, 300)]


@pytest.mark.parametrize("mask_shape", GQA_MASKS)
@pytest.mark.parametrize("is_causal", [False, True])
def test_enable_gqa_with_a_mask_or_causal_matches_torch(torch, mask_shape: tuple[int, ...], is_causal: bool) -> None:
    rng = np.random.default_rng(len(mask_shape))
    q = rng.normal(size=(2, 8, 3, 16))  # 3 query rows: the decode path, the group's rows stacked
    k, v = rng.normal(size=(2, 2, 300, 16)), rng.normal(size=(2, 2, 300, 8))
    mask = None if is_causal else rng.random(mask_shape) < 0.4
    if mask is not None:
        mask[..., 0] = True  # every row keeps a key
    tensors = [torch.from_numpy(a) for a in (q, k, v)]
    attn_mask = None if mask is None else torch.from_numpy(np.atleast_2d(mask))  # PyTorch takes no 1-D mask
    expected = torch.nn.functional.scaled_dot_product_attention(*tensors, attn_mask=attn_mask, is_causal=is_causal,
                                                                enable_gqa=True)
    options = {"mask": mask, "is_causal": is_causal, "enable_gqa": True}
    assert_close(scaled_dot_product_attention(q, k, v, **options).output, expected, "float64")
    assert_close(attention_output(q, k, v, **options), expected, "float64")
    assert_close(tiled_attention(q, k, v, block_size=64, **options), expected, "float64")


def test_enable_gqa_float16_decode_matches_torch(torch) -> None:
    rng = np.random.default_rng(816)
    q = rng.normal(size=(1, 32, 1, 64)).astype(np.float16)  # Mistral-7B's heads: 32 query heads, 8 K/V heads
    k, v = (rng.normal(size=(1, 8, 2000, 64)).astype(np.float16) for _ in range(2))
    expected = torch.nn.functional.scaled_dot_product_attention(*(torch.from_numpy(a) for a in (q, k, v)), enable_gqa=True)
    ours = attention_output(q, k, v, enable_gqa=True)
    assert ours.dtype == np.float16
    np.testing.assert_allclose(ours.astype(np.float64), expected.double().numpy(), rtol=0, atol=5e-4)


def test_float16_is_at_least_as_accurate_as_torch_float16(torch) -> None:
    # Both compute in float32 and round to float16; against the float64 answer of the same
    # float16 inputs, qkv's error must not exceed PyTorch's (it was 3-4× larger in pure float16).
    rng = np.random.default_rng(16)
    q, k, v = (rng.normal(size=(4, 256, 64)).astype(np.float16) for _ in range(3))
    exact = scaled_dot_product_attention(*(a.astype(np.float64) for a in (q, k, v))).output
    ours = scaled_dot_product_attention(q, k, v).output
    theirs = torch.nn.functional.scaled_dot_product_attention(*(torch.from_numpy(a) for a in (q, k, v))).numpy()
    assert ours.dtype == np.float16 and theirs.dtype == np.float16
    our_error = np.abs(ours.astype(np.float64) - exact).max()
    their_error = np.abs(theirs.astype(np.float64) - exact).max()
    assert our_error <= their_error * 1.01, (our_error, their_error)
    assert our_error <= 2**-11  # half a float16 unit at 1, and the outputs are within ±1


def test_the_reproducer_of_float16_overflow_matches_torch(torch) -> None:
    q = np.full((1, 16), 64, np.float16)  # q·k = 65,536: past the float16 maximum in pure float16
    expected = torch.nn.functional.scaled_dot_product_attention(*(torch.from_numpy(q),) * 3).numpy()
    assert np.array_equal(scaled_dot_product_attention(q, q, q).output, expected)
    assert np.array_equal(tiled_attention(q, q, q), expected)
