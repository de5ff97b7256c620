"""qkv's wheel, alone: built by setuptools (the project's own build backend) from a small project made for it.

The project's own wheel would hold `qkv_site` as well, and its dependencies are those of the package
`qkv` (`[project].dependencies` in pyproject.toml: numpy). So the wheel is built from a project that holds
only `qkv`'s modules, with the name, version, Python requirement, licence and dependencies of
pyproject.toml and the first line of `qkv`'s docstring as its summary. setuptools' PEP 517 hook runs in a
process of its own (its state and working folder stay out of the build's) with ``SOURCE_DATE_EPOCH``
set: every file of the wheel carries that time and setuptools' fixed permissions, so the same sources
and setuptools give the same bytes. Nothing is fetched: the hook is called directly, with no isolated
environment to install.
"""

from __future__ import annotations

import ast
import json
import os
import re
import subprocess
import sys
import tempfile
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass
from importlib.metadata import version
from pathlib import Path

BACKEND = "setuptools"
# The PEP 517 hook, in a process of its own; prints the wheel's file name.
_BUILD = "import sys; from setuptools import build_meta; print(build_meta.build_wheel(sys.argv[1]))"


@dataclass(frozen=True)
class WheelProject:
    """What a wheel of one package says about itself, from the project's pyproject.toml."""

    name: str
    version: str
    requires_python: str
    license: str
    dependencies: tuple[str, ...]
    summary: str

    @property
    def oldest_python(self) -> str:
        """``>=3.11`` → ``3.11``: the oldest Python the wheel installs on, which the instructions name.

        >>> WheelProject("qkv", "1.0", ">=3.11", "MIT", (), "").oldest_python
        '3.11'
        """
        found = re.fullmatch(r"\s*>=\s*(\d+\.\d+)\s*", self.requires_python)
        if found is None:
            raise ValueError(f"requires-python {self.requires_python!r} is not of the form >=X.Y: the instructions "
                             "name the oldest Python")
        return found.group(1)

    def pyproject(self, package: str) -> str:
        """The pyproject.toml of a project that holds only ``package`` (under ``src/``).

        >>> print(WheelProject("qkv", "1.0", ">=3.11", "MIT", ("numpy",), "Sums.").pyproject("qkv"))  # doctest: +ELLIPSIS
        [build-system]
        requires = ["setuptools==..."]
        build-backend = "setuptools.build_meta"
        <BLANKLINE>
        [project]
        name = "qkv"
        version = "1.0"
        description = "Sums."
        requires-python = ">=3.11"
        license = "MIT"
        dependencies = ["numpy"]
        <BLANKLINE>
        [tool.setuptools]
        packages.find = { where = ["src"], include = ["qkv", "qkv.*"] }
        <BLANKLINE>
        """

        def toml(value: object) -> str:  # a TOML string or list of strings: JSON's form of them is TOML too
            return json.dumps(value, ensure_ascii=False)

        return "\n".join([
            "[build-system]",
            f"requires = {toml([f'{BACKEND}=={version(BACKEND)}'])}",
            'build-backend = "setuptools.build_meta"',
            "",
            "[project]",
            f"name = {toml(self.name)}",
            f"version = {toml(self.version)}",
            f"description = {toml(self.summary)}",
            f"requires-python = {toml(self.requires_python)}",
            f"license = {toml(self.license)}",
            f"dependencies = {toml(list(self.dependencies))}",
            "",
            "[tool.setuptools]",
            f"packages.find = {{ where = [\"src\"], include = {toml([package, f'{package}.*'])} }}",
            "",
        ])


def wheel_project(pyproject: Path, package_init: Path) -> WheelProject:
    """The wheel's metadata: pyproject.toml's ``[project]`` and the first line of the package's docstring."""
    try:
        table = tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]
        name, version_, requires_python = table["name"], table["version"], table["requires-python"]
    except (OSError, KeyError, tomllib.TOMLDecodeError) as error:
        raise ValueError(f"{pyproject}: the wheel needs [project] name, version and requires-python ({error!r})") from error
    licence = table.get("license")
    if isinstance(licence, dict):  # { text = "MIT" }: the licence's SPDX name, as setuptools now asks for it
        licence = licence.get("text")
    if not isinstance(licence, str) or not licence:
        raise ValueError(f"{pyproject}: [project] license must name the licence (e.g. \"MIT\"), got {table.get('license')!r}")
    docstring = ast.get_docstring(ast.parse(package_init.read_text(encoding="utf-8")))
    if not docstring:
        raise ValueError(f"{package_init} has no docstring: its first line is the wheel's summary")
    return WheelProject(name, version_, requires_python, licence, tuple(table.get("dependencies", ())),
                        docstring.splitlines()[0])


def build_wheel(package: str, modules: Sequence[tuple[str, Path]], project: WheelProject, epoch: int) -> tuple[str, bytes]:
    """The wheel of ``package`` made of ``modules`` (each ``package/relative/path.py`` and its file):
    its file name and bytes, every file in it dated ``epoch`` (seconds since 1970, UTC)."""
    with tempfile.TemporaryDirectory(prefix="qkv-wheel-") as folder:
        root = Path(folder) / "project"
        for name, path in modules:
            if not name.startswith(f"{package}/"):
                raise ValueError(f"{name} is not a module of {package}: the wheel holds {package} alone")
            target = root / "src" / name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(path.read_bytes())
        (root / "pyproject.toml").write_text(project.pyproject(package), encoding="utf-8")
        out = Path(folder) / "dist"
        env = {**os.environ, "SOURCE_DATE_EPOCH": str(epoch), "PYTHONDONTWRITEBYTECODE": "1"}
        result = subprocess.run([sys.executable, "-c", _BUILD, str(out)], cwd=root, env=env,
                                capture_output=True, text=True, timeout=300)
        if result.returncode != 0:
            output = f"{result.stdout[-2000:]}\n{result.stderr[-4000:]}"
            raise RuntimeError(f"setuptools could not build the wheel of {package}:\n{output}")
        name = result.stdout.strip().splitlines()[-1]
        return name, (out / name).read_bytes()
