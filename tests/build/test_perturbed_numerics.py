"""The same site on every machine: no sentence, flag or printed number depends on the last bits of a float.

Another CPU, BLAS kernel or thread count rounds exp, log and matrix products differently in the last
place (glibc's exp against numpy's AVX-512 one, OpenBLAS's Haswell kernel against its Prescott one).
The pages decide their sentences with `qkv_site.values.claims` (equal or ordered only beyond rounding)
and print with `qkv_site.values.formatting` (never a digit that rounding can flip); these tests hold
them to it.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from qkv_site.values.claims import TooCloseToCall
from qkv_site.values.formatting import number, percent, printable

SUPPORT = Path(__file__).resolve().parents[1] / "support"  # perturbed_numerics.py
PAGES_DIR = SUPPORT.parents[1] / "src" / "qkv_site" / "pages"
SALTS = (1, 2)  # two machines that round differently from this one, and from each other


def perturbed(*args: str) -> Any:
    command = [sys.executable, str(SUPPORT / "perturbed_numerics.py"), *args]
    result = subprocess.run(command, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, f"{' '.join(args) or 'no salt'}: the pages' values failed:\n{result.stderr[-3000:]}"
    return json.loads(result.stdout)


@cache
def values(salt: int | None) -> dict[str, Any]:
    pages = ["--pages", *(page for page in _deterministic_pages())]
    return perturbed(*pages) if salt is None else perturbed("--salt", str(salt), *pages)


def _deterministic_pages() -> list[str]:
    sys.path.insert(0, str(SUPPORT))
    try:
        from perturbed_numerics import PAGES
    finally:
        sys.path.remove(str(SUPPORT))
    return list(PAGES)


@pytest.mark.parametrize("salt", SALTS)
def test_every_page_prints_the_same_when_exp_log_and_matmul_round_differently(salt: int) -> None:
    here, there = values(None), values(salt)
    for page in here:
        assert here[page] == there[page], f"{page}: a printed value depends on the last bits of exp, log or matmul"


def test_the_perturbation_moves_the_numbers_the_pages_are_computed_from() -> None:
    """The test above could pass by perturbing nothing: the raw weights must differ in their last bits."""
    probe = ("import sys, json; sys.path.insert(0, {tests!r}); import perturbed_numerics as p; {perturb}"
             "from qkv.examples import worked_example; import numpy as np;"
             "e = worked_example(); print(json.dumps([float(x) for x in e.weights.ravel()] + [float(np.exp(0.5))]))")
    raw = {}
    for salt in (None, *SALTS):
        perturb = "" if salt is None else f"p.perturb({salt});"
        code = probe.format(tests=str(SUPPORT), perturb=perturb)
        result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
        assert result.returncode == 0, result.stderr
        raw[salt] = json.loads(result.stdout)
    for salt in SALTS:
        moved = [a != b for a, b in zip(raw[None], raw[salt], strict=True)]
        assert any(moved[:-1]) and moved[-1], f"salt {salt} left the worked example's weights or exp(0.5) untouched"
        assert max(abs(a - b) for a, b in zip(raw[None], raw[salt], strict=True)) < 1e-14  # a few ulps, no more


def test_a_number_within_rounding_of_a_rounding_boundary_is_refused() -> None:
    with pytest.raises(TooCloseToCall, match="boundary between two printed forms"):
        number(0.125, 2)  # one machine's 0.12499999999999999 prints 0.12, another's 0.125 prints 0.13
    with pytest.raises(TooCloseToCall):
        percent(0.645 + 1e-17)
    assert printable(0.1251, 2) > 0.125  # a margin of 1e-4 is far above rounding


def test_an_integer_off_by_one_ulp_prints_as_the_integer() -> None:
    one_below = 1 - 2**-53
    assert number(one_below) == number(1.0) == "1"
    assert number(0.9996) == "1.00"  # not an integer: printed with its decimals


# `==` and `!=` in the pages' modules: allowed only where neither side can be a computed float, or with a
# comment ``# exact: <why>`` on the line (a masked weight is exactly 0; integer matrices multiply exactly).
_NOT_FLOAT_CALLS = {"len", "int", "str", "sorted", "set", "list", "tuple", "type", "bool", "isinstance", "range",
                    "largest", "resolve"}  # an index, a word


def _surely_not_float(node: ast.expr) -> bool:
    if isinstance(node, ast.Constant):
        return not isinstance(node.value, float)
    if isinstance(node, (ast.List, ast.Tuple, ast.Set, ast.Dict, ast.JoinedStr, ast.ListComp, ast.SetComp)):
        return True
    if isinstance(node, ast.Call):
        name = node.func.id if isinstance(node.func, ast.Name) else node.func.attr if isinstance(node.func, ast.Attribute) else ""
        return name in _NOT_FLOAT_CALLS
    if isinstance(node, ast.Name):
        return node.id.isupper() or node.id in {"i", "j"}  # a module's constant, an index
    if isinstance(node, ast.Subscript) and isinstance(node.value, (ast.Attribute, ast.Call)):
        value = node.value
        if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr == "shape":
            return True
        if isinstance(value, ast.Attribute) and value.attr == "shape":
            return True
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant):
        return node.slice.value in {"n", "verdict", "kind", "name", "implementation", "layout", "dtype", "resolved"}
    if isinstance(node, ast.Attribute):
        return node.attr in {"name", "kind", "n", "shape", "ndim", "d_k", "n_plain", "tokens", "keys", "layers", "heads",
                             "kv_heads"}
    return False


def _float_equalities(path: Path) -> list[str]:
    source = path.read_text(encoding="utf-8")
    lines = source.splitlines()
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Compare):
            continue
        sides = [node.left, *node.comparators]
        for op, left, right in zip(node.ops, sides, sides[1:], strict=False):
            if isinstance(op, (ast.Eq, ast.NotEq)) and not (_surely_not_float(left) or _surely_not_float(right)):
                line = lines[node.lineno - 1]
                if "# exact:" not in line and "# exact:" not in lines[node.lineno - 2]:
                    found.append(f"{path.name}:{node.lineno}: {line.strip()}")
    return found


def test_the_pages_compare_computed_floats_only_through_the_claims_helpers() -> None:
    found = [hit for path in sorted(PAGES_DIR.glob("*.py")) for hit in _float_equalities(path)]
    assert not found, ("== or != that may compare computed floats; use qkv_site.values.claims.equal (or say why it is exact "
                       "with '# exact: …'):\n" + "\n".join(found))


def test_the_equality_check_catches_a_comparison_of_floats(tmp_path: Path) -> None:
    page = tmp_path / "page.py"
    page.write_text("def f(w):\n    return w[0, 1] == w[1, 0]\n\ndef g(w):\n    return w[0] == 0  # exact: masked\n")
    assert _float_equalities(page) == ["page.py:2: return w[0, 1] == w[1, 0]"]
