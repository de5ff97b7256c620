"""Train every learned-attention run over every seed and commit what they reach (the page prints these, it never trains).

    .venv/bin/python benchmarks/learned_attention.py --kernels Prescott,SkylakeX   # the committed run (AVX-512 only)
    .venv/bin/python benchmarks/learned_attention.py            # full run (a few minutes), writes
                                                                # benchmarks/results/learned_attention.json and
                                                                # benchmarks/results/learned_model_<task>.json
    .venv/bin/python benchmarks/learned_attention.py --quick    # seconds: checks the script works, saves nothing

Training is chaotic: the same seed trains to different numbers on different OpenBLAS kernels (try
OPENBLAS_CORETYPE=Prescott), so the site shows these committed runs, with the machine that made them.
Every run of `qkv.learning.runs.RUNS` (the experiments with Adam, the baseline and the scaling
experiment with plain SGD, the referent task) is trained with seeds 0 … N−1 and kept as a record
(`qkv.learning.runs.record`); then every finding of `qkv.learning.findings.FINDINGS` is counted
over the seeds, on this machine's OpenBLAS kernel and again on each kernel of `--kernels` (the
whole training rerun in a child process with OPENBLAS_CORETYPE set; default Prescott, the oldest
x86-64 kernel, whose sums are ordered differently from the AVX2/AVX-512 ones); `robust` marks the
findings that hold in every seed on every one of those kernels. The shown seed's (0) baseline
and referent models are written in full (`qkv.learning.saved.model_data`) with the held-out count
and the two probe sentences' attention they must reproduce. tests/qkv/test_learning_results.py
retrains the shown seed and checks the robust findings on the machine that runs it.
"""

from __future__ import annotations

import dataclasses
import gzip
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from _common import machine_info, output_path, parser, run_main, table, write_results

from qkv.learning.findings import evaluate
from qkv.learning.referent import REFERENT_DEFAULTS
from qkv.learning.runs import RUNS, probe_batch, record, train_run
from qkv.learning.saved import model_data
from qkv.learning.training import Options, make_options

SEEDS = 10
SHOWN_SEED = 0
MODEL_RUNS = {"coreference": "baseline", "referent": "referent"}  # task -> the run whose seed-0 model is committed
MODEL_BUDGET = 100_000  # bytes, gzip: what the browser widget downloads per model


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{x:.1%}"


def model_file(name: str) -> dict[str, Any]:
    """The shown seed's model of run `name` in full, with the numbers a load must reproduce."""
    model = train_run(name, SHOWN_SEED)
    probes = probe_batch(model)
    heldout = model.task.heldout()
    return {
        **model_data(model), "run": name, "seed": SHOWN_SEED,
        "check": {"heldout_correct": int(model.correct(heldout).sum()), "heldout_total": len(heldout),
                  "probes": {key: {"sentence": text, "attention": model.attention(text).tolist()}
                             for key, text in zip(("tired", "wide"), probes.text, strict=True)}},
    }


def options_of(name: str) -> Options:
    """Every option of run `name` with its defaults filled in (the seed aside)."""
    task, options = RUNS[name]
    defaults = REFERENT_DEFAULTS if task == "referent" else {}
    return make_options(0, task=task, **{**defaults, **options})


def records_under(kernel: str, seeds: int) -> dict[str, Any]:
    """Every record again, trained in a child process whose OpenBLAS uses the kernel `kernel`."""
    with tempfile.TemporaryDirectory() as directory:
        output = Path(directory) / "records.json"
        command = [sys.executable, __file__, "--records-only", "--seeds", str(seeds), "--output", str(output)]
        subprocess.run(command, check=True, env={**os.environ, "OPENBLAS_CORETYPE": kernel}, stdout=subprocess.DEVNULL)
        data: dict[str, Any] = json.loads(output.read_text(encoding="utf-8"))
    return data


def compact(value: Any, indent: int = 0) -> str:
    """JSON with dicts one key a line and lists of numbers on one line (small and readable in a diff)."""
    pad = " " * indent
    if isinstance(value, dict) and value:
        inner = ",\n".join(f"{pad} {json.dumps(str(k), ensure_ascii=False)}: {compact(v, indent + 1)}"
                           for k, v in value.items())
        return "{\n" + inner + "\n" + pad + "}"
    if isinstance(value, list) and any(isinstance(v, (dict, list)) for v in value) and indent < 3:
        return "[\n" + ",\n".join(f"{pad} {compact(v, indent + 1)}" for v in value) + "\n" + pad + "]"
    return json.dumps(value, ensure_ascii=False, separators=(", ", ": "))


def main(argv: list[str] | None = None) -> int:
    p = parser(__doc__.splitlines()[0])
    p.add_argument("--seeds", type=int, default=None, help=f"how many seeds (default {SEEDS}; --quick: 1)")
    p.add_argument("--kernels", default="Prescott",
                   help="comma-separated OPENBLAS_CORETYPE values to rerun every seed under (default Prescott; "
                        "'' for none; --quick: none)")
    p.add_argument("--records-only", action="store_true", help="(internal) write the records only, to --output")
    args = p.parse_args(argv)
    seeds = list(range(args.seeds if args.seeds is not None else (1 if args.quick else SEEDS)))
    runs = list(RUNS) if not args.quick else ["baseline", "SGD scale 1/d_k", "referent"]
    machine = machine_info()
    print(f"learned attention: {len(runs)} runs x {len(seeds)} seeds{' (--quick)' if args.quick else ''}")
    print(f"numpy {machine['numpy']}; {machine['cpu_model']}; OpenBLAS core {machine['numpy_blas']['core']}; "
          f"environment {machine['environment']}\n")
    start = time.perf_counter()
    records: dict[str, dict[str, Any]] = {name: {} for name in runs}
    for seed in seeds:
        for name in runs:
            records[name][str(seed)] = record(name, seed)
        print(f"seed {seed}: {time.perf_counter() - start:.0f} s", flush=True)
    if args.records_only:
        assert args.output is not None, "--records-only writes to --output"
        args.output.write_text(json.dumps({"records": records, "machine": machine}), encoding="utf-8")
        return 0
    header = ["run", *(f"seed {seed}" for seed in seeds)]
    rows = []
    for name in runs:
        cells = []
        for seed in seeds:
            r = records[name][str(seed)]
            if "diverged_at" in r:
                cells.append(f"diverged@{r['diverged_at']}")
                continue
            first = "" if r["first_99"] is None else f" ≥99@{r['first_99']} min {_pct(r['min_after_99'])}"
            cells.append(f"{_pct(r['final'])}{first}")
        rows.append([name, *cells])
    print("final held-out accuracy (≥99@s: first step at 99 % or more, min: lowest after it)")
    print(table(header, rows))
    findings = evaluate({seed: {name: records[name][str(seed)] for name in runs} for seed in seeds}) \
        if not args.quick else []
    kernels = [k for k in args.kernels.split(",") if k] if not args.quick else []
    for kernel in kernels:
        print(f"\nrerunning every seed with OPENBLAS_CORETYPE={kernel} …", flush=True)
        other = records_under(kernel, len(seeds))
        for f, g in zip(findings, evaluate({seed: {name: other["records"][name][str(seed)] for name in runs}
                                            for seed in seeds}), strict=True):
            f.setdefault("other_kernels", {})[kernel] = {"holds_in": g["holds_in"], "values": g["values"],
                                                        "core": other["machine"]["numpy_blas"]["core"]}
            f["robust"] = f["robust"] and g["robust"]
    if findings:
        print("\nfindings (holds in k of N seeds, with its margin" + "".join(f"; under {k}" for k in kernels) + "):")
        for f in findings:
            others = "".join(f" ({k}: {len(v['holds_in'])}/{f['seeds']})" for k, v in f.get("other_kernels", {}).items())
            print(f"  {len(f['holds_in'])}/{f['seeds']}{others} {'ROBUST ' if f['robust'] else ''}{f['statement']}")
    seconds = time.perf_counter() - start
    print(f"\n{seconds:.0f} s in all")
    path = output_path(args, "learned_attention")
    write_results(path, {
        "benchmark": "learned_attention", "quick": args.quick, "seeds": seeds, "shown_seed": SHOWN_SEED,
        "runs": {name: {"task": RUNS[name][0], "options": RUNS[name][1],
                        "resolved": {k: v for k, v in dataclasses.asdict(options_of(name)).items() if k != "seed"}}
                 for name in runs},
        "records": records, "findings": findings, "seconds": round(seconds, 1), "machine": machine,
    })
    if path is not None:  # write_results wrote indented JSON; rewrite it compactly
        data = json.loads(path.read_text(encoding="utf-8"))
        path.write_text(compact(data) + "\n", encoding="utf-8")
    for task, name in MODEL_RUNS.items():
        if name not in runs:
            continue
        text = json.dumps(model_file(name), separators=(",", ":")) + "\n"
        size = len(gzip.compress(text.encode()))
        print(f"model of {task} (run {name!r}, seed {SHOWN_SEED}): {len(text):,} bytes, {size:,} gzip "
              f"(budget {MODEL_BUDGET:,}): {'PASS' if size <= MODEL_BUDGET else 'MISS'}")
        if path is not None:
            target = path.parent / f"learned_model_{task}.json" if args.output is None else \
                Path(str(path).removesuffix(".json") + f"_model_{task}.json")
            target.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    run_main(main)
