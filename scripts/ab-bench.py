#!/usr/bin/env python3
"""Compares two builds of magpie-bench on the same rows, in one run.

    scripts/ab-bench.py BASE_BIN NEW_BIN OUT_DIR ROUNDS -- SUITE ARGS...

Runs `BIN SUITE ARGS... --json` ROUNDS times for each binary, alternating which goes first
(base then new in odd rounds, new then base in even ones), keeps every JSON output in
OUT_DIR (`base-R.json`, `new-R.json`), and prints one Markdown table: for each row with a
`median_s` (experiment, app, instance, config, workers), the median over the rounds of each
build's median, and new / base. Rows that only one build printed are listed as such (an
added row is an interface addition; a dropped one is a defect).
"""
import json
import statistics
import subprocess
import sys
from pathlib import Path


def run(binary, args, out):
    p = subprocess.run([binary] + args + ["--json"], capture_output=True, text=True)
    out.write_text(p.stdout)
    if p.returncode != 0:
        sys.stderr.write(p.stderr[-2000:])
        sys.exit(f"ab-bench: {binary} exited with {p.returncode}")
    return json.loads(p.stdout)


def key(row):
    return (row["experiment"], row["app"], row["instance"], row["config"], row["workers"])


def main():
    if "--" not in sys.argv or len(sys.argv) < 6:
        sys.exit(__doc__)
    sep = sys.argv.index("--")
    base, new, out_dir, rounds = sys.argv[1:sep]
    args = sys.argv[sep + 1 :]
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    medians = {"base": {}, "new": {}}
    for r in range(1, int(rounds) + 1):
        order = [("base", base), ("new", new)]
        if r % 2 == 0:
            order.reverse()
        for name, binary in order:
            print(f"ab-bench: round {r}: {name}", file=sys.stderr, flush=True)
            for row in run(binary, args, out / f"{name}-{r}.json"):
                if row.get("median_s") is not None:
                    medians[name].setdefault(key(row), []).append(row["median_s"])
    print("| experiment | app | instance | config | workers | base (s) | new (s) | new / base |")
    print("|---|---|---|---|---:|---:|---:|---:|")
    for k in sorted(set(medians["base"]) | set(medians["new"]), key=str):
        b, n = medians["base"].get(k), medians["new"].get(k)
        cells = " | ".join(str(x) for x in k)
        if b and n:
            mb, mn = statistics.median(b), statistics.median(n)
            print(f"| {cells} | {mb:.4f} | {mn:.4f} | {mn / mb:.3f} |")
        else:
            print(f"| {cells} | {'-' if not b else f'{statistics.median(b):.4f}'} | "
                  f"{'-' if not n else f'{statistics.median(n):.4f}'} | only in {'new' if n else 'base'} |")


if __name__ == "__main__":
    main()
