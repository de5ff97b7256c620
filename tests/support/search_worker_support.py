"""Material's search worker, as the build corrects it, run under node on an index made by a test."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

from qkv_site.builder import compat
from qkv_site.formulas.engine import NODE
from qkv_site.search import material_worker as material_search

# Loads the worker into a context of its own (as a browser's worker has), with importScripts reading the
# theme's lunr language files, and answers its messages: set-up (0) with the index, then one query (2) each.
RUNNER = r"""
const fs = require("fs"), path = require("path"), vm = require("vm");
const [source, workers, input] = process.argv.slice(1);
const { index, queries } = JSON.parse(fs.readFileSync(input, "utf8"));
let handler = null, replies = [];
const context = vm.createContext({ console, URL, Map, Set, Uint16Array });
context.self = context;
context.addEventListener = (type, listener) => { handler = listener; };
context.postMessage = (message) => replies.push(message);
context.importScripts = (...urls) => urls.forEach((url) => vm.runInContext(fs.readFileSync(path.join(workers, url), "utf8"), context));
vm.runInContext(fs.readFileSync(source, "utf8"), context);
(async () => {
  await handler({ data: { type: 0, data: { config: index.config, docs: index.docs, options: { suggest: false } } } });
  const results = [];
  for (const query of queries) {
    replies = [];
    await handler({ data: { type: 2, data: query } });
    results.push(replies[0].data.items.map((group) => group.map(({ location, title, text, terms }) => ({ location, title, text, terms }))));
  }
  process.stdout.write(JSON.stringify(results));
})();
"""


def run_worker(tmp_path: Path, index: dict[str, Any], queries: list[str]) -> list[list[list[dict[str, Any]]]]:
    """Each query's result groups (a page's entries, best first), as the built site's worker returns them."""
    theme = compat.material_worker()
    source = tmp_path / "search.js"
    source.write_text(material_search.corrected(theme.read_text(encoding="utf-8")), encoding="utf-8")
    data = tmp_path / "input.json"
    data.write_text(json.dumps({"index": index, "queries": queries}, ensure_ascii=False), encoding="utf-8")
    done = subprocess.run([str(NODE), "-e", RUNNER, str(source), str(theme.parent), str(data)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and not done.stderr, done.stderr[-3000:]
    results: list[list[list[dict[str, Any]]]] = json.loads(done.stdout)
    return results
