"""How long the site takes to build (cold and cached, by stage) and how many bytes each of its pages costs a reader.

    .venv/bin/python benchmarks/site_build.py                       # full run (a few minutes), writes benchmarks/results/site_build.json
    .venv/bin/python benchmarks/site_build.py --quick --site-dir site   # seconds: an already built site's worked-example and learned-attention pages, one figure
    .venv/bin/python benchmarks/site_build.py --pages --site-dir site   # every page's weight of a built site, into the committed results
    .venv/bin/python benchmarks/site_build.py --cached                  # about a minute: the cached rebuild beside the same pages with nothing to compute, into the committed results

Full run:

1. first build on a new machine: an empty figure-font cache (QKV_SITE_FONT_CACHE pointed at an
   empty folder, so the font is cut from the variable CJK font as on a first install) and no build
   cache (.cache/: figures, code-block output, executed notebooks, compiled templates, typeset
   formulas, social cards, search views), then
   `mkdocs build --strict` into a temporary directory.
2. cold build: the same without the build cache, the font kept (it is made once per
   machine, in matplotlib's cache; here in the folder the first build filled).
3. cached rebuild: the same command again, with the caches the cold build left; then, side by side
   (`compare_cached`), the cached rebuild and the same pages built with nothing to compute
   (benchmarks/replay_build.py: MkDocs, Material and mkdocs-static-i18n doing their own work on
   the pages a capture build kept, checked to write the same site file for file), in turns, five
   of each, medians compared: the ratio is what the plugin's cached work adds to the build MkDocs
   would do anyway. --cached runs this step alone, with the build cache as it is (warmed first by
   the capture build) and records it beside the last full run's other numbers.
4. edit one page: `mkdocs serve` on a free port; docs/zh/summary.md gets a new paragraph (the file
   is restored afterwards) and the time from saving it to the served page containing it is taken,
   median of three edits. The browser reloads when that build ends (livereload).
5. stages of the cold build, timed on their own: figures = `qkv_site.figures.registry.render_all`
   into an empty directory, in this process; notebooks = executing docs/zh/notebook.ipynb and
   docs/en/notebook.ipynb with nbclient; the rest (Markdown, markdown-exec blocks, theme, search
   index, copying assets) = cold total - figures - notebooks.
6. page bytes: every file the built worked-example page makes a browser download, read from the
   built files: the HTML, stylesheets, scripts (and the ES modules they import), the search worker
   with its index and lunr languages, images and the favicon (the formulas are SVG inside the HTML,
   typeset at build time). Raw and gzip -9 sizes; already compressed files (woff, png) count the
   same in both. A static upper bound: the search is fetched only when the reader goes to search.
7. page weights, the numbers held to the targets: every page of the nav in both languages, opened
   in Chromium by one tab with its cache off and its storage emptied after each page (a first visit,
   `page_weight.Reader`), light scheme, read to its end (scrolled down so that every lazy figure is
   fetched, its widgets drawn; the learned-attention widgets fetch their models only when used),
   every file it requested counted at its gzip -9 size, by category
   (`qkv_site.tools.page_weight`), beside the page's target and the budget
   tests/browser/test_browser_page_weight.py holds it to (the target, or for a page over it what it weighs
   today). The site is built with the environment the script runs in (the deploy workflow's
   REPO_URL adds the header's repository link, about 0.6 KB). The sizes are read from the built
   files, so the same site weighs the same on every run. With --quick, the worked-example and
   learned-attention pages only. With --pages, every page of an already built site (build it as the
   deploy workflow does: SITE_URL, REPO_URL and REPO_NAME set), recorded in the committed results
   beside the timings of the last full run, which are kept: weights do not depend on how busy the
   machine is, timings do.
"""

from __future__ import annotations

import gzip
import json
import os
import re
import resource
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from html.parser import HTMLParser
from pathlib import Path
import urllib.request
from urllib.parse import unquote, urlsplit

from _common import ROOT, machine_info, median, output_path, parser, run_main, table, verdict, write_results
from qkv_site.site_map import load_site_map

TARGETS = {
    "first_build_s": (30.0, "first build on a new machine (empty font cache, no build cache) under 30 s on a 2-core machine"),
    "cold_build_s": (30.0, "cold full build under 30 s on a 2-core machine"),
    "cached_build_s": (3.0, "cached rebuild (nothing changed) under 3 s on a 2-core machine"),
    "cached_vs_nothing_to_compute": (1.5, "cached rebuild within 1.5x of the same pages built with nothing to compute, side by side"),
    "edit_reload_s": (3.0, "mkdocs serve: from saving an edited page to serving it under 3 s on a 2-core machine"),
    "pages_over_target": (0, "every page read to its end in Chromium within its target: 150 KB gzip, worked-example 100 KB"),
}
QUICK_PAGES = ("worked-example.md", "learned-attention.md")  # the pages --quick loads in Chromium
SITE_MAP = load_site_map(ROOT / "mkdocs.yml")
DEFAULT_LANG = SITE_MAP.root_home.lang  # built at the site root
MEASURED = "worked-example.md"
NOTEBOOKS = [ROOT / "docs" / "zh" / "notebook.ipynb", ROOT / "docs" / "en" / "notebook.ipynb"]
BUILD_CACHE = ROOT / ".cache"  # what builds keep for the next one (qkv_site.builder, mkdocs-jupyter)
EDITED_PAGE, EDITED_URL = ROOT / "docs" / DEFAULT_LANG / "summary.md", SITE_MAP.page("summary.md", DEFAULT_LANG).url
COMPRESSED = {".woff", ".woff2", ".png", ".jpg", ".jpeg", ".gif", ".webp", ".ico"}
CHROMIUM = Path("/usr/bin/chromium")


# ---- build times ----------------------------------------------------------------------------------


def clear_caches() -> list[str]:
    removed = []
    for cache in sorted(BUILD_CACHE.glob("*")) if BUILD_CACHE.is_dir() else []:
        shutil.rmtree(cache) if cache.is_dir() else cache.unlink()
        removed.append(str(cache.relative_to(ROOT)))
    return removed


# CPU seconds (user + system) of each timed build, by site folder name: on a shared machine the
# wall-clock time includes waiting for other people's processes, the CPU time does not.
CPU_S: dict[str, float] = {}


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _process_cpu(pid: int) -> float | None:
    """CPU seconds a running process has used so far (Linux /proc; None elsewhere)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime, stime


def timed_build(site_dir: Path) -> float:
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    command = [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site_dir)]
    start, start_cpu = time.perf_counter(), _children_cpu()
    result = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    CPU_S[site_dir.name] = _children_cpu() - start_cpu  # with the notebook kernels it starts
    if result.returncode != 0:
        sys.exit(f"mkdocs build failed:\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}")
    return seconds


REPLAY = Path(__file__).resolve().parent / "replay_build.py"


def _timed(command: list[str]) -> tuple[float, float]:
    """Wall-clock and CPU seconds of one run of ``command`` in the project."""
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    start, start_cpu = time.perf_counter(), _children_cpu()
    result = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True)
    seconds, cpu = time.perf_counter() - start, _children_cpu() - start_cpu
    if result.returncode != 0:
        sys.exit(f"{' '.join(command)} failed:\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}")
    return seconds, cpu


def compare_cached(tmp: Path, rounds: int = 5) -> dict:
    """The cached rebuild beside the same pages built with nothing to compute (replay_build.py), in turns."""
    tmp.mkdir(parents=True, exist_ok=True)
    store, captured = tmp / "kept-pages.pickle", tmp / "captured"
    _timed([sys.executable, str(REPLAY), "capture", str(store), str(captured)])  # also warms every cache
    mkdocs = [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir"]
    replay = [sys.executable, str(REPLAY), "replay", str(store)]
    cached: list[tuple[float, float]] = []
    nothing: list[tuple[float, float]] = []
    for turn in range(rounds):
        pair = [(cached, mkdocs + [str(tmp / "cached")]), (nothing, replay + [str(tmp / "replayed"), str(captured)])]
        for runs, command in pair if turn % 2 == 0 else pair[::-1]:
            runs.append(_timed(command))
    sys.path.insert(0, str(REPLAY.parent))
    from replay_build import compare

    differ = compare(captured, tmp / "replayed") + compare(captured, tmp / "cached")
    if differ:
        sys.exit(f"the replayed or cached site is not the captured one: {differ[:10]}")
    result = {
        "rounds": rounds,
        "cached_s": median([wall for wall, _ in cached]), "nothing_to_compute_s": median([wall for wall, _ in nothing]),
        "cached_cpu_s": median([cpu for _, cpu in cached]), "nothing_to_compute_cpu_s": median([cpu for _, cpu in nothing]),
        "each_cached_s": [round(wall, 2) for wall, _ in cached], "each_nothing_to_compute_s": [round(wall, 2) for wall, _ in nothing],
        "same_site": True,
    }
    result["ratio"] = result["cached_s"] / result["nothing_to_compute_s"]
    result["cpu_ratio"] = result["cached_cpu_s"] / result["nothing_to_compute_cpu_s"]
    print(f"cached rebuild {result['cached_s']:.2f} s (CPU {result['cached_cpu_s']:.2f} s) beside the same pages with "
          f"nothing to compute {result['nothing_to_compute_s']:.2f} s (CPU {result['nothing_to_compute_cpu_s']:.2f} s): "
          f"{result['ratio']:.2f}x (CPU {result['cpu_ratio']:.2f}x); medians of {rounds} in turns, the three sites the same "
          f"file for file", flush=True)
    return result


def record_cached(output: Path | None) -> int:
    """--cached: the side-by-side comparison alone, recorded beside the committed results of the last full run."""
    if output is None or not output.is_file():
        sys.exit(f"--cached updates the results of a full run, and there are none at {output}: run the full benchmark first")
    results = json.loads(output.read_text(encoding="utf-8"))
    measured = machine_info()  # the load average as the comparison starts
    with tempfile.TemporaryDirectory(prefix="qkv-site-") as tmp:
        compared = compare_cached(Path(tmp))
    results["cached_vs_nothing_to_compute"] = compared
    results["cached_measured"] = measured
    results["cached_measured"]["load_average_at_end"] = [round(x, 2) for x in os.getloadavg()]
    limit, description = TARGETS["cached_vs_nothing_to_compute"]
    met = compared["ratio"] <= limit
    print(f"target: {description}: {verdict(met)} ({compared['ratio']:.2f}x)")
    targets = {key: value for key, value in results.get("targets", {}).items() if key in TARGETS}
    targets["cached_vs_nothing_to_compute"] = {"description": description, "limit": limit, "value": compared["ratio"], "met": met}
    results["targets"] = targets
    output.write_text(json.dumps(results, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"written to {output.relative_to(ROOT) if output.is_relative_to(ROOT) else output}")
    return 0


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _served(url: str) -> str:
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            return response.read().decode("utf-8")
    except OSError:  # not serving yet, or in the middle of a rebuild
        return ""


def _wait_for(url: str, text: str, server: subprocess.Popen, timeout: float = 900.0) -> float:
    start = time.perf_counter()
    while text not in _served(url):
        if server.poll() is not None:
            sys.exit(f"mkdocs serve exited with code {server.returncode}")
        if time.perf_counter() - start > timeout:
            sys.exit(f"mkdocs serve did not serve {text!r} at {url} within {timeout:.0f} s")
        time.sleep(0.05)
    return time.perf_counter() - start


def time_edit_reload(edits: int = 3) -> dict:
    """Seconds from saving an edit of one page to `mkdocs serve` serving the edited page."""
    port = _free_port()
    url = f"http://127.0.0.1:{port}/{EDITED_URL}"
    command = [sys.executable, "-m", "mkdocs", "serve", "--dev-addr", f"127.0.0.1:{port}"]
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    original = EDITED_PAGE.read_text(encoding="utf-8")
    server = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    times, cpu = [], []
    try:
        first = _wait_for(url, "</html>", server)
        for n in range(edits):
            marker = f"qkv-edit-{n}-{time.time_ns()}"
            before = _process_cpu(server.pid)
            EDITED_PAGE.write_text(f"{original}\n{marker}\n", encoding="utf-8")
            times.append(_wait_for(url, marker, server))
            after = _process_cpu(server.pid)
            cpu.append(after - before if None not in (before, after) else None)
            time.sleep(1.0)  # let the watcher settle before the next edit
    finally:
        EDITED_PAGE.write_text(original, encoding="utf-8")
        server.terminate()
        server.wait(timeout=60)
    return {"seconds": median(times), "each_s": times, "cpu_each_s": cpu, "first_served_s": first,
            "page": str(EDITED_PAGE.relative_to(ROOT)), "command": "mkdocs serve"}


def time_figures(quick: bool) -> dict:
    from qkv_site.figures import fonts, registry
    from qkv_site.project import load_project

    project = load_project(ROOT / "mkdocs.yml")
    fonts.register()  # the font is an install step (cached); not part of the figures' time
    with tempfile.TemporaryDirectory() as docs:
        start = time.perf_counter()
        if quick:  # one figure in one language and scheme: checks the path, not the time
            name = next(iter(registry.FIGURES))
            registry.render_svg(registry.FIGURES[name], "zh", "light", project)
            count = 1
        else:
            count = len(registry.render_all(Path(docs), project))
        seconds = time.perf_counter() - start
    return {"seconds": seconds, "svg_files": count}


def time_notebooks() -> dict:
    import nbformat
    from nbclient import NotebookClient

    times = {}
    for path in NOTEBOOKS:
        notebook = nbformat.read(path, as_version=4)
        start = time.perf_counter()
        NotebookClient(notebook, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}}).execute()
        times[str(path.relative_to(ROOT))] = time.perf_counter() - start
    return {"seconds": sum(times.values()), "per_notebook_s": times}


# ---- page bytes -----------------------------------------------------------------------------------


class _References(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.found: list[tuple[str, str]] = []  # (category, url)
        self.config: str | None = None
        self._in_config = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {name: value or "" for name, value in attrs}
        if tag == "link" and "stylesheet" in a.get("rel", "").split():
            self.found.append(("css", a["href"]))
        elif tag == "link" and "icon" in a.get("rel", "").split():
            self.found.append(("images", a["href"]))
        elif tag == "script" and a.get("src"):
            self.found.append(("mathjax" if "mathjax/" in a["src"] and a["src"].endswith("tex-chtml.js") else "js", a["src"]))
        elif tag == "img" and a.get("src"):
            self.found.append(("images", a["src"]))
        elif tag == "script" and a.get("id") == "__config":
            self._in_config = True

    def handle_data(self, data: str) -> None:
        if self._in_config:
            self.config = (self.config or "") + data

    def handle_endtag(self, tag: str) -> None:
        if tag == "script":
            self._in_config = False


def _resolve(base: Path, url: str, site: Path) -> Path | None:
    parts = urlsplit(url)
    if parts.scheme or parts.netloc or not parts.path:
        return None
    path = (site / parts.path.lstrip("/")) if parts.path.startswith("/") else (base.parent / unquote(parts.path))
    path = path.resolve()
    return path if path.is_file() else None


def page_files(site: Path, page: Path, missing: list[str] | None = None) -> dict[str, set[Path]]:
    """Every built file the page makes a browser download, by category (static reading of the files).

    References to files that are not in the site are appended to `missing`.
    """
    site = site.resolve()
    refs = _References()
    refs.feed(page.read_text(encoding="utf-8"))
    files: dict[str, set[Path]] = {"html": {page.resolve()}}
    pending = [(category, page, url) for category, url in refs.found]
    while pending:
        category, base, url = pending.pop()
        path = _resolve(base, url, site)
        if path is None:
            if missing is not None and not urlsplit(url).scheme and urlsplit(url).path:
                missing.append(f"{base.relative_to(site)}: {url}")
            continue
        if path in files.setdefault(category, set()):
            continue
        files[category].add(path)
        text = path.read_text(encoding="utf-8", errors="replace") if path.suffix in {".css", ".js"} else ""
        if path.suffix == ".css":  # fonts and images a stylesheet points to
            for ref in re.findall(r"url\(\s*['\"]?([^'\")]+)", text):
                if not ref.startswith("data:"):
                    pending.append(("fonts" if re.search(r"\.(woff2?|ttf|otf)$", ref.split("?")[0]) else "images", path, ref))
        if path.suffix == ".js" and category == "js":  # ES modules: static and dynamic imports
            for ref in re.findall(r"""(?:\bfrom\s*|\bimport\s*\(?\s*)["'](\.{1,2}/[^"']+)["']""", text):
                pending.append(("js", path, ref))
    if refs.config:  # Material's search: a worker, the index, and lunr's language support
        config = json.loads(refs.config)
        worker = _resolve(page, config["search"], site)
        if worker is not None:
            search = files.setdefault("search", set())
            search.add(worker)
            index = site / "search" / "search_index.json"
            if index.is_file():
                search.add(index)
                languages = json.loads(index.read_text(encoding="utf-8"))["config"].get("lang", ["en"])
                lunr = site / "assets" / "javascripts" / "lunr"
                names = ["min/lunr.stemmer.support.min.js"] if any(lang != "en" for lang in languages) or len(languages) > 1 else []
                for lang in languages:
                    names += {"ja": ["tinyseg.js"], "hi": ["wordcut.js"], "th": ["wordcut.js"]}.get(lang, [])
                    names += [f"min/lunr.{lang}.min.js"] if lang != "en" else []
                names += ["min/lunr.multi.min.js"] if len(languages) > 1 else []
                search.update(lunr / name for name in names if (lunr / name).is_file())
    if files.get("mathjax"):
        fonts = site / "assets" / "mathjax" / "output" / "chtml" / "fonts" / "woff-v2"
        files["mathjax fonts (all woff-v2, upper bound)"] = set(fonts.glob("*.woff"))
    return {category: paths for category, paths in files.items() if paths}


def _sizes(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    return len(data), len(data) if path.suffix.lower() in COMPRESSED else len(gzip.compress(data, 9, mtime=0))


def byte_report(site: Path, files: dict[str, set[Path]]) -> dict:
    categories = {}
    for category, paths in files.items():
        sizes = [_sizes(p) for p in paths]
        categories[category] = {
            "files": len(paths),
            "raw_bytes": sum(raw for raw, _ in sizes),
            "gzip_bytes": sum(gz for _, gz in sizes),
            "paths": sorted(str(p.relative_to(site.resolve())) for p in paths),
        }
    return {
        "categories": categories,
        "total_raw_bytes": sum(c["raw_bytes"] for c in categories.values()),
        "total_gzip_bytes": sum(c["gzip_bytes"] for c in categories.values()),
    }


def page_weights(site: Path, quick: bool) -> dict | None:
    """Every page (with --quick, QUICK_PAGES) in both languages as Chromium requests it, read to its end
    (qkv_site.tools.page_weight); None when Playwright or Chromium is missing here."""
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return None
    if not CHROMIUM.is_file():
        return None
    from qkv_site.tools.page_weight import measure_site

    weights = measure_site(site, ROOT / "mkdocs.yml", sources=QUICK_PAGES if quick else None)
    report: dict = {}
    for (source, lang), weight in weights.items():
        report.setdefault(lang, {})[source] = weight.as_json()
    return report


def print_page_weights(report: dict) -> None:
    from qkv_site.tools.page_weight import CATEGORIES

    rows = []
    for lang, pages in report.items():
        for source, page in pages.items():
            rows.append([source, lang, *(f"{page['categories'][c] / 1000:.1f}" for c in CATEGORIES), kb(page["gzip_bytes"]),
                         kb(page["target_bytes"]), verdict(page["gzip_bytes"] <= page["target_bytes"]), kb(page["budget_bytes"])])
    print("\nevery page read to its end in Chromium (light scheme, nothing cached), gzip KB by category (1 KB = 1,000 bytes);"
          "\nthe budget the browser test holds it to: its target, or for a page over its target what it weighs today")
    print(table(["page", "lang", *CATEGORIES, "total", "target", "", "budget"], rows))


def measure_page(site: Path) -> dict:
    report = {}
    for lang in SITE_MAP.languages:
        page = SITE_MAP.page(MEASURED, lang).built(site)
        if not page.is_file():
            sys.exit(f"no built page at {page}; build the site first (mkdocs build) or pass --site-dir")
        missing: list[str] = []
        report[lang] = byte_report(site, page_files(site, page, missing))
        report[lang]["missing_references"] = missing
        for reference in missing:
            print(f"warning: the page refers to a file the site does not have: {reference}")
    return report


def kb(nbytes: int) -> str:
    return f"{nbytes / 1000:,.1f} KB"


def print_page_report(report: dict, how: str = "static count of the built files") -> None:
    for lang, page in report.items():
        rows = [[category, str(c["files"]), kb(c["raw_bytes"]), kb(c["gzip_bytes"])] for category, c in sorted(page["categories"].items())]
        rows.append(["total", str(sum(c["files"] for c in page["categories"].values())), kb(page["total_raw_bytes"]), kb(page["total_gzip_bytes"])])
        print(f"\nworked-example page ({lang}), {how} (1 KB = 1,000 bytes)")
        print(table(["category", "files", "raw", "gzip"], rows))


def pages_over(pages: dict | None) -> list[str] | None:
    """The pages over their target (None when no page was weighed); warns of any over its budget."""
    if pages is None:
        return None
    weighed = [(source, lang, page) for lang, by_source in pages.items() for source, page in by_source.items()]
    past_budget = sorted(f"{source} ({lang})" for source, lang, page in weighed if page["gzip_bytes"] > page["budget_bytes"])
    if past_budget:
        print(f"warning: over the budget the browser test holds them to: {', '.join(past_budget)}")
    return sorted(f"{source} ({lang}) {kb(page['gzip_bytes'])} > {kb(page['target_bytes'])}"
                  for source, lang, page in weighed if page["gzip_bytes"] > page["target_bytes"])


def record_page_weights(site: Path, output: Path | None) -> int:
    """--pages: every page's weight of the built ``site``, recorded beside the committed timings."""
    if output is None or not output.is_file():
        sys.exit(f"--pages updates the results of a full run, and there are none at {output}: run the full benchmark first")
    pages = page_weights(site, quick=False)
    if pages is None:
        sys.exit("--pages needs Playwright and /usr/bin/chromium")
    results = json.loads(output.read_text(encoding="utf-8"))
    print_page_weights(pages)
    over = pages_over(pages)
    assert over is not None
    results["pages"] = pages
    results["pages_measured"] = machine_info(site_env={name: os.environ.get(name) for name in ("SITE_URL", "REPO_URL", "REPO_NAME")})
    results["page_bytes"] = measure_page(site)
    results["page_gzip_upper_bound_bytes"] = max(page["total_gzip_bytes"] for page in results["page_bytes"].values())
    results.pop("browser", None)  # what an earlier version of this script measured of one page
    limit, description = TARGETS["pages_over_target"]
    counted = sum(len(by_source) for by_source in pages.values())
    print(f"\ntarget: {description}: {verdict(len(over) <= limit)} ({len(over)} of {counted} pages over"
          + (f": {'; '.join(over)}" if over else "") + ")")
    targets = {key: value for key, value in results.get("targets", {}).items() if key in TARGETS}
    targets["pages_over_target"] = {"description": description, "limit": limit, "value": len(over), "met": len(over) <= limit}
    results["targets"] = targets
    output.write_text(json.dumps(results, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"\npage weights written to {output.relative_to(ROOT) if output.is_relative_to(ROOT) else output}")
    return 0


def main(argv: list[str] | None = None) -> int:
    p = parser(__doc__.splitlines()[0])
    p.add_argument("--site-dir", type=Path, help="with --quick or --pages: an already built site to measure (default: ./site)")
    p.add_argument("--cached", action="store_true", help="time the cached rebuild beside the same pages built with nothing "
                   "to compute and record it in the committed results, keeping the rest of the last full run")
    p.add_argument("--pages", action="store_true", help="weigh every page of an already built site and record the weights "
                   "in the committed results, keeping the timings of the last full run")
    args = p.parse_args(argv)
    if args.cached:
        return record_cached(args.output or output_path(args, "site_build"))
    if args.pages:
        return record_page_weights((args.site_dir or ROOT / "site").resolve(), args.output or output_path(args, "site_build"))
    machine = machine_info()
    results: dict = {"benchmark": "site_build", "quick": args.quick, "machine": machine}

    if args.quick:
        site = (args.site_dir or ROOT / "site").resolve()
        print(f"site build (--quick): page bytes of the already built {site}, one figure rendered; no build is timed")
        figures = time_figures(quick=True)
        print(f"figures: one SVG rendered in {figures['seconds']:.2f} s (the full render is timed without --quick)")
        results["stages"] = {"figures": figures}
    else:
        print("site build: first, cold and cached builds, an edit under mkdocs serve, stages, page bytes (a few minutes)")
        with tempfile.TemporaryDirectory(prefix="qkv-site-") as tmp, tempfile.TemporaryDirectory(prefix="qkv-font-") as fonts:
            os.environ["QKV_SITE_FONT_CACHE"] = fonts  # every build below, and this process, use this font cache
            removed = clear_caches()
            first = timed_build(Path(tmp) / "first")
            print(f"first build on a new machine (empty font cache): {first:.1f} s (CPU {CPU_S['first']:.1f} s)", flush=True)
            removed = clear_caches()
            cold = timed_build(Path(tmp) / "cold")
            print(f"cold build: {cold:.1f} s (CPU {CPU_S['cold']:.1f} s; removed first: {', '.join(removed) or 'nothing'})", flush=True)
            cached = timed_build(Path(tmp) / "cached")
            print(f"cached rebuild: {cached:.1f} s (CPU {CPU_S['cached']:.1f} s)", flush=True)
            compared = compare_cached(Path(tmp) / "compared")
            edit = time_edit_reload()
            print(f"edit one page under mkdocs serve: {edit['seconds']:.1f} s to the served page "
                  f"(each: {', '.join(f'{t:.1f}' for t in edit['each_s'])} s; CPU of the server: "
                  f"{', '.join('?' if t is None else f'{t:.1f}' for t in edit['cpu_each_s'])} s)", flush=True)
            figures = time_figures(quick=False)
            print(f"figures (render_all, cold, in-process): {figures['seconds']:.1f} s for {figures['svg_files']} SVG files", flush=True)
            notebooks = time_notebooks()
            print(f"notebooks (nbclient, both): {notebooks['seconds']:.1f} s", flush=True)
            rest = cold - figures["seconds"] - notebooks["seconds"]
            print(f"the rest (Markdown, markdown-exec, theme, search, assets) = cold - figures - notebooks: {rest:.1f} s")
            site = Path(tmp) / "cold"
            results["builds"] = {"first_s": first, "cold_s": cold, "cached_s": cached, "edit_reload": edit, "cpu_s": CPU_S,
                                 "cleared_before_cold": removed,
                                 "kept_for_cold": "the figure font in matplotlib's cache (made by the first build)"}
            results["cached_vs_nothing_to_compute"] = compared
            results["stages"] = {"figures": figures, "notebooks": notebooks, "rest_s": rest}
            results["page_bytes"] = measure_page(site)
            results["pages"] = page_weights(site, quick=False)
            print_page_report(results["page_bytes"])
            if results["pages"]:
                print_page_weights(results["pages"])
    if args.quick:
        results["page_bytes"] = measure_page(site)
        results["pages"] = page_weights(site, quick=True)
        print_page_report(results["page_bytes"])
        if results["pages"]:
            print_page_weights(results["pages"])

    print()
    upper_bound = max(page["total_gzip_bytes"] for page in results["page_bytes"].values())
    results["page_gzip_upper_bound_bytes"] = upper_bound
    print(f"worked-example page, gzip: {kb(upper_bound)} (static count of the built files, the search included)")
    pages = results.get("pages")
    over = pages_over(pages)
    measured = {
        "first_build_s": results.get("builds", {}).get("first_s"),
        "cold_build_s": results.get("builds", {}).get("cold_s"),
        "cached_build_s": results.get("builds", {}).get("cached_s"),
        "cached_vs_nothing_to_compute": results.get("cached_vs_nothing_to_compute", {}).get("ratio"),
        "edit_reload_s": results.get("builds", {}).get("edit_reload", {}).get("seconds"),
        "pages_over_target": None if over is None else len(over),
    }
    results["targets"] = {}
    for key, (limit, description) in TARGETS.items():
        value = measured[key]
        if value is None:
            why = "no Chromium here" if key == "pages_over_target" else "--quick"
            print(f"target: {description}: not measured ({why})")
            results["targets"][key] = {"description": description, "limit": limit, "value": None, "met": None}
            continue
        if key == "pages_over_target":
            met = value <= limit
            counted = sum(len(by_source) for by_source in pages.values())
            shown = f"{value} of {counted} pages over" + (f": {'; '.join(over)}" if over else "")
            if args.quick:
                shown += f"; --quick loads {', '.join(QUICK_PAGES)} only"
        elif key == "cached_vs_nothing_to_compute":
            met = value <= limit
            shown = f"{value:.2f}x"
        else:
            met = value < limit
            shown = f"{value:.1f} s"
        print(f"target: {description}: {verdict(met)} ({shown})")
        results["targets"][key] = {"description": description, "limit": limit, "value": value, "met": met}
    write_results(output_path(args, "site_build"), results)
    return 0


if __name__ == "__main__":
    run_main(main)
