"""Every deterministic page's values, computed as another machine might: exp, log and matmul off by 1–2 ulps.

Run as a program in a fresh process (``python tests/support/perturbed_numerics.py [--salt N]``), it prints the
values of every page as JSON. With ``--salt`` it first moves every result of ``np.exp``, ``np.log``,
``np.log2``, ``np.matmul``, the ``@`` operator, ``math.exp`` and ``math.log`` by -2, -1, +1 or +2 units in
the last place. The move is chosen from the bits of the result and the salt, so the same call gives the
same result every time, as a real machine's kernel does; two salts are two different machines. The
``@`` operator cannot be patched on numpy's arrays, so the modules of ``qkv`` and of the site's pages are
loaded with each ``a @ b`` rewritten as a call to the perturbed matmul (an import hook, installed before
any of them is imported).

`tests/build/test_perturbed_numerics.py` compares the output of the salts with the plain one: a page whose printed
strings change, or that raises, depends on the last bits of a float.
"""

from __future__ import annotations

import argparse
import ast
import builtins
import importlib.abc
import importlib.machinery
import json
import math
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[2]  # tests/support/ → the checkout
# The pages whose numbers are computed at build time.
PAGES = ("asymmetry", "beyond_quadratic", "complexity", "intuition", "self_vs_cross", "summary_flow", "why_sqrt_dk",
         "why_three_matrices", "worked_example", "playground", "learned_attention", "motivation")
# modules whose `@` is perturbed: the math, the pages' values and what they are made of
REWRITTEN = ("qkv", "qkv_site.pages", "qkv_site.values", "qkv_site.learned_results", "qkv_site.playground_presets",
             "qkv_site.glossary", "qkv_site.editors_notes")
_MIX = np.uint64(0x9E3779B97F4A7C15)  # Fibonacci hashing: neighbouring bit patterns get unrelated moves
_MOVES = np.array([-2, -1, 1, 2, -2, -1, 1, 2], dtype=np.int64)


def moved(result: Any, salt: int, exact: Any = False) -> Any:
    """`result` with each finite non-zero float moved by -2…+2 ulps, chosen by its bits and `salt`.

    Where `exact` is True the result is left alone: every machine computes it exactly (exp(0) = 1, a
    power of two's log2, a product of small integers).
    """
    array = np.asarray(result)
    if array.dtype not in (np.float64, np.float32):
        return result
    bits_type = np.uint64 if array.dtype == np.float64 else np.uint32
    signed_type = np.int64 if array.dtype == np.float64 else np.int32
    values = np.array(array, copy=True)
    bits = values.view(signed_type)
    with np.errstate(over="ignore"):  # the hash wraps around on purpose
        key = (values.view(bits_type).astype(np.uint64) * _MIX + np.uint64(salt) * _MIX) >> np.uint64(61)
    step = _MOVES[key.astype(np.int64)].astype(signed_type)
    ok = (values != 0) & (np.abs(values) < np.finfo(values.dtype).max) & ~np.broadcast_to(exact, values.shape)
    bits[ok] += step[ok]
    return values if isinstance(result, np.ndarray) else values[()]


def _integral(x: Any) -> bool:
    array = np.asarray(x)
    return bool(array.dtype.kind in "iub" or (array.dtype.kind == "f" and np.all(array == np.round(array))))


# Which results of each function every machine computes exactly, from its inputs.
_EXACT: dict[str, Callable[..., Any]] = {
    "exp": lambda x: np.asarray(x) == 0,
    "log": lambda x: np.asarray(x) == 1,
    "log2": lambda x: np.frexp(np.asarray(x, dtype=float))[0] == 0.5,  # a power of two
    "matmul": lambda a, b: _integral(a) and _integral(b),  # small integers: every partial sum is exact
}


def _perturbed_ufunc(ufunc: np.ufunc, salt: int) -> Callable[..., Any]:
    exact_where = _EXACT[ufunc.__name__]

    def call(*args: Any, **kwargs: Any) -> Any:
        out = kwargs.get("out")
        if out is None and len(args) > ufunc.nin:
            out = args[ufunc.nin]
        exact = exact_where(*args[: ufunc.nin])  # before the call: `out` may be one of the inputs
        result = ufunc(*args, **kwargs)
        if out is not None:
            target = out[0] if isinstance(out, tuple) else out
            target[...] = moved(target, salt, exact)
            return result
        return moved(result, salt, exact)

    return call


class _MatmulRewriter(ast.NodeTransformer):
    def visit_BinOp(self, node: ast.BinOp) -> ast.AST:
        self.generic_visit(node)
        if isinstance(node.op, ast.MatMult):
            return ast.copy_location(ast.Call(ast.Name("__perturbed_matmul__", ast.Load()), [node.left, node.right], []), node)
        return node


class _Loader(importlib.machinery.SourceFileLoader):
    def source_to_code(self, data: Any, path: Any, *, _optimize: int = -1) -> Any:  # type: ignore[override]
        tree = ast.fix_missing_locations(_MatmulRewriter().visit(ast.parse(data, filename=str(path))))
        return compile(tree, path, "exec", dont_inherit=True)


class _Finder(importlib.abc.MetaPathFinder):
    def find_spec(self, name: str, path: Sequence[str] | None, target: Any = None) -> Any:
        if not any(name == prefix or name.startswith(prefix + ".") for prefix in REWRITTEN):
            return None
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        if spec is not None and isinstance(spec.loader, importlib.machinery.SourceFileLoader):
            spec.loader = _Loader(spec.loader.name, spec.loader.path)
        return spec


def perturb(salt: int) -> None:
    """Move exp, log and matmul results from now on; must run before `qkv` is imported."""
    if any(name == "qkv" or name.startswith(("qkv.", "qkv_site.")) for name in sys.modules):
        raise RuntimeError("perturb() must run before qkv is imported: its `@` would not be rewritten")
    for name in ("exp", "log", "log2", "matmul"):
        setattr(np, name, _perturbed_ufunc(getattr(np, name), salt))
    builtins.__perturbed_matmul__ = np.matmul  # type: ignore[attr-defined]
    exact_exp, exact_log = math.exp, math.log
    math.exp = lambda x: float(moved(np.float64(exact_exp(x)), salt, x == 0))  # type: ignore[assignment]
    math.log = lambda x, *base: float(moved(np.float64(exact_log(x, *base)), salt))  # type: ignore[assignment]
    sys.meta_path.insert(0, _Finder())


def page_values(pages: Sequence[str] = PAGES) -> dict[str, Any]:
    """Every page's values as plain JSON data (dataclasses as dicts)."""
    import dataclasses
    import importlib

    from qkv_site.project import load_project

    project = load_project(str(ROOT / "mkdocs.yml"))

    def plain(value: Any) -> Any:
        if dataclasses.is_dataclass(value) and not isinstance(value, type):
            return plain(dataclasses.asdict(value))
        if isinstance(value, dict):
            return {str(key): plain(item) for key, item in value.items()}
        if isinstance(value, (list, tuple)):
            return [plain(item) for item in value]
        if isinstance(value, (np.generic,)):
            return value.item()
        return value

    return {page: plain(importlib.import_module(f"qkv_site.pages.{page}").values(project)) for page in pages}


def another_machine() -> dict[str, str]:
    """Variables that make this machine compute as an older one would: another OpenBLAS kernel (Prescott,
    SSE3; Nehalem when Prescott is already in use) and numpy without the SIMD extensions it dispatches to here."""
    import os

    from numpy._core._multiarray_umath import __cpu_dispatch__, __cpu_features__

    kernel = "Nehalem" if os.environ.get("OPENBLAS_CORETYPE", "").lower() == "prescott" else "Prescott"
    extras = [name for name in __cpu_dispatch__ if __cpu_features__.get(name)]  # dispatched to here, beyond the baseline
    return {"OPENBLAS_CORETYPE": kernel, **({"NPY_DISABLE_CPU_FEATURES": " ".join(extras)} if extras else {})}


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--salt", type=int, help="move exp, log and matmul by 1-2 ulps, in the pattern of this salt")
    parser.add_argument("--pages", nargs="*", default=list(PAGES))
    args = parser.parse_args(argv)
    if args.salt is not None:
        perturb(args.salt)
    json.dump(page_values(args.pages), sys.stdout, ensure_ascii=False, sort_keys=True, indent=1, default=str)


if __name__ == "__main__":
    main()
