#!/usr/bin/env python3
"""Soak test of `magpie search`: random configurations against independent oracles.

Run through `scripts/soak.sh MINUTES` (which builds the CLI first). Each run draws, from its
own printed seed, a deque, victim and idle policy, skeleton and its parameters, 1-16
workers, an application and an instance; a fraction of the runs are distributed over 1-4
MPI ranks. Every run goes under `timeout`. A run is

  ok        exit 0, and the answer equals the oracle value;
  mismatch  exit 0 with a different answer, or exit 1 (the CLI's own check failed);
  hang      killed by the timeout (or by its SIGKILL 10 s later);
  crash     any other exit status, or a panic message on stderr.

The oracle values are read from the shared files, never copied here:
../shared/specs/uts.md (node, leaf and depth counts of the named trees),
../shared/specs/numerical-semigroups.md (n_g), ../shared/instances/README.md (omega of the
DIMACS graphs, TSPLIB optima, knapsack optima), the `z` line of each Pisinger instance, and
the N-Queens counts are computed here by a plain bitmask backtracking (independent of
magpie's). The CLI checks every answer as well (the clique is a clique, the tour has its
length, counts equal its own tables).

Replay one run: `scripts/soak.sh --replay SEED` (prints the command and the verdict).
"""

import argparse
import json
import os
import random
import re
import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SHARED = (REPO / ".." / "shared").resolve()
# The instances: MAGPIE_INSTANCES, else the collection beside the repository (its README
# holds the oracles, so the soak needs the collection, not the repository's tests/data).
INST = Path(os.environ.get("MAGPIE_INSTANCES") or SHARED / "instances")

# Instances fast enough for ~0.1-10 s per run on 2 cores with up to 16 workers (measured
# with 2 workers: every one under 2.5 s). Slower ones (brock400_*, frb30-15-1, gr48,
# eil51, knapPI_3 with 2000+ items) are left out so that a timeout means a hang.
CLIQUE_GRAPHS = [
    "brock200_1", "brock200_2", "brock200_3", "brock200_4", "C125.9", "p_hat300-1",
    "p_hat500-1", "p_hat700-1", "san200_0.7_1", "san200_0.9_2", "sanr200_0.7", "MANN_a9",
    "MANN_a27", "johnson8-2-4", "johnson8-4-4", "johnson16-2-4", "hamming6-2", "hamming6-4",
    "c-fat200-1", "gen200_p0.9_55", "DSJC500_5",
]
TSP_FILES = ["burma14", "ulysses16", "gr17", "gr24", "fri26", "bayg29", "dantzig42",
             "swiss42", "att48", "berlin52"]
KNAPSACK_SLOW = {"knapPI_3_2000_1000_1", "knapPI_3_5000_1000_1", "knapPI_3_10000_1000_1"}
UTS_TREES = ["default", "T1", "T2", "T3", "T4", "T5"]
NS_GENUS = (5, 30)
NQUEENS_N = (4, 12)

LOCAL_SKELETONS = ["seq", "depth-bounded", "budget", "stack-stealing", "ordered"]
DIST_SKELETONS = ["depth-bounded", "budget", "stack-stealing"]
REMOTE_VICTIMS = ["random", "sticky", "perf"]
APPS = ["uts", "ns", "nqueens", "maxclique", "knapsack", "tsp"]


# ---------------------------------------------------------------- oracles (shared files)

def table_rows(path):
    """Every Markdown table row of `path` as a list of stripped cells."""
    for line in path.read_text().splitlines():
        line = line.strip()
        if line.startswith("|") and line.endswith("|") and not re.match(r"^\|[-| :]+\|$", line):
            yield [c.strip() for c in line[1:-1].split("|")]


def num(cell):
    """An integer from a table cell such as `4,130,071`, or None."""
    cell = cell.replace(",", "")
    return int(cell) if re.fullmatch(r"\d+", cell) else None


def load_oracles():
    o = {"omega": {}, "tsp": {}, "knapsack": {}, "uts": {}, "ns": {}}
    for r in table_rows(INST / "README.md"):
        if r[0].endswith(".clq") and len(r) >= 5 and num(r[4]) is not None:
            o["omega"][r[0][:-4]] = num(r[4])
        elif r[0].endswith(".tsp") and len(r) >= 4 and num(r[3]) is not None:
            o["tsp"][r[0][:-4]] = num(r[3])
        elif len(r) == 4 and re.match(r"^(f\d+_l-d|knapPI)", r[0]):
            o["knapsack"][r[0]] = float(r[3])
    for r in table_rows(SHARED / "specs" / "uts.md"):
        if len(r) == 6 and num(r[3]) is not None:
            name = "default" if r[0] == "(default)" else r[0]
            o["uts"][name] = (num(r[3]), num(r[4]), num(r[5]))
    for r in table_rows(SHARED / "specs" / "numerical-semigroups.md"):
        if len(r) == 6 and all(num(c) is not None for c in r):
            for g, n in zip(r[0::2], r[1::2]):
                o["ns"][int(g)] = int(n)
    for key in ("omega", "tsp", "knapsack", "uts", "ns"):
        assert o[key], f"no {key} oracle values found in the shared files"
    return o


def pisinger_z(path, index):
    """The stored optimum `z` of instance `index` (from 1) of a Pisinger CSV file."""
    seen = 0
    for line in path.read_text().splitlines():
        if line.startswith("z "):
            seen += 1
            if seen == index:
                return int(line.split()[1])
    raise ValueError(f"{path}: no instance {index}")


_QUEENS = {}


def nqueens(n):
    """N-Queens solutions, by plain bitmask backtracking (an oracle independent of magpie)."""
    if n not in _QUEENS:
        full = (1 << n) - 1

        def go(cols, d1, d2):
            if cols == full:
                return 1
            count, free = 0, full & ~(cols | d1 | d2)
            while free:
                bit = free & -free
                free ^= bit
                count += go(cols | bit, ((d1 | bit) << 1) & full, (d2 | bit) >> 1)
            return count

        _QUEENS[n] = go(0, 0, 0)
    return _QUEENS[n]


# ---------------------------------------------------------------- configurations

def policy_names(magpie):
    """Victim and idle policy names, as `magpie info` lists them."""
    out = subprocess.run([magpie, "info"], capture_output=True, text=True, check=True).stdout
    names = {}
    for key in ("deques", "victims", "idle"):
        m = re.search(rf"^\s*{key}:\s*(.+)$", out, re.M)
        if not m:
            sys.exit(f"soak: `magpie info` lists no {key}")
        names[key] = [s.strip() for s in m.group(1).split(",")]
    return names


def draw(seed, names, oracles, mpi_fraction, mpi_ok):
    """The configuration of run `seed`: (argv after `magpie`, ranks, expected, what)."""
    rng = random.Random(seed)
    ranks = rng.randint(1, 4) if mpi_ok and rng.random() < mpi_fraction else 0
    workers = rng.randint(1, 16 // max(ranks, 1))
    args = ["search"]
    app = rng.choice(APPS)
    expect = {}
    if app == "uts":
        tree = rng.choice(UTS_TREES)
        args += ["uts", "--tree", tree]
        expect = dict(zip(("nodes", "depth", "leaves"), oracles["uts"][tree]))
    elif app == "ns":
        g = rng.randint(*NS_GENUS)
        args += ["ns", "--genus", str(g)]
        expect = {"counts": [oracles["ns"][i] for i in range(g + 1)]}
    elif app == "nqueens":
        n = rng.randint(*NQUEENS_N)
        args += ["nqueens", "--n", str(n)]
        expect = {"solutions": nqueens(n)}
    elif app == "maxclique":
        g = rng.choice(CLIQUE_GRAPHS)
        omega = oracles["omega"][g]
        args += ["maxclique", str(INST / "dimacs" / f"{g}.clq")]
        if rng.random() < 0.3:
            k = rng.choice([max(1, omega - 2), omega, omega + 1])
            args += ["--target", str(k)]
            expect = {"found": k <= omega}
        else:
            expect = {"omega": omega}
    elif app == "knapsack":
        kind = rng.choice(["low-dimensional", "large_scale", "pisinger"])
        if kind == "pisinger":
            f = rng.choice(sorted((INST / "knapsack" / "pisinger").glob("*/*.csv")))
            i = rng.randint(1, 100)
            args += ["knapsack", str(f), "--instance", str(i)]
            expect = {"profit": pisinger_z(f, i)}
        else:
            names_ = sorted(p.name for p in (INST / "knapsack" / kind).iterdir()
                            if p.name not in KNAPSACK_SLOW)
            name = rng.choice(names_)
            args += ["knapsack", str(INST / "knapsack" / kind / name)]
            expect = {"profit_value": oracles["knapsack"][name]}
    else:
        f = rng.choice(TSP_FILES)
        args += ["tsp", str(INST / "tsplib" / f"{f}.tsp")]
        expect = {"length": oracles["tsp"][f]}

    skeleton = rng.choice(DIST_SKELETONS if ranks else LOCAL_SKELETONS)
    args += ["--skeleton", skeleton]
    if skeleton == "depth-bounded":
        args += ["--spawn-depth", str(rng.randint(0, 4))]
    if skeleton == "ordered":
        # Ordered makes every node at the cut-off a task before it starts: MANN_a27 at
        # depth 3 is 8.5 M tasks (1.7 GB, 12 s), at depth 4 it passed 6 GB in 50 s.
        args += ["--spawn-depth", str(rng.randint(0, 2 if app == "maxclique" else 3))]
    if skeleton == "budget":
        args += ["--budget", str(rng.choice([1, 10, 100, 1000, 10000, 100000]))]
    if skeleton == "stack-stealing" and rng.random() < 0.5:
        args += ["--steal-all"]
    if skeleton == "ordered":
        args += ["--order", rng.choice(["sequential", "discrepancy"])]
    if skeleton == "seq":
        workers = 1  # seq runs on one worker; `--workers N` with N > 1 is a usage error
    args += ["--workers", str(workers), "--deque", rng.choice(names["deques"]),
             "--victims", rng.choice(names["victims"]), "--idle", rng.choice(names["idle"])]
    if rng.random() < 0.3:
        args += ["--join-limit", rng.choice(["1", "16", "eager"])]
    if ranks:
        args += ["--distributed", "--remote-victims", rng.choice(REMOTE_VICTIMS)]
    args += ["--json"]
    return args, ranks, expect


def command(magpie, args, ranks, timeout):
    cmd = [magpie] + args
    if ranks:
        cmd = ["mpirun", "--allow-run-as-root", "--oversubscribe", "--bind-to", "none",
               "-np", str(ranks)] + cmd
    return ["timeout", "-k", "10", str(timeout)] + cmd


def verdict(rc, out, err, expect):
    """(verdict, detail) of one finished run."""
    # 124: timed out; 137 or -9: still running 10 s after that, killed (`timeout -k`
    # sends SIGKILL to its whole process group, itself included).
    if rc in (124, 137, -9):
        return "hang", f"killed by timeout (rc {rc})"
    if "panicked" in err:
        return "crash", "panic: " + next(l for l in err.splitlines() if "panicked" in l)
    if rc == 1:
        return "mismatch", "the CLI's check failed: " + err.strip()[-300:]
    if rc != 0:
        return "crash", f"exit status {rc}: " + err.strip()[-300:]
    try:
        got = json.loads(out.strip().splitlines()[-1])
    except (ValueError, IndexError):
        return "crash", "no JSON answer on stdout: " + out.strip()[-200:]
    for key, want in expect.items():
        if key == "profit_value":
            have = got.get("profit", 0) / 10 ** got.get("decimals", 0)
            if abs(have - want) > 1e-6 * max(1.0, abs(want)):
                return "mismatch", f"profit {have}, oracle {want}"
        elif got.get(key) != want:
            return "mismatch", f"{key} = {got.get(key)!r}, oracle {want!r}"
    return "ok", ""


def run_one(seed, magpie, names, oracles, a):
    args, ranks, expect = draw(seed, names, oracles, a.mpi_fraction, a.mpi)
    cmd = command(magpie, args, ranks, a.timeout)
    t0 = time.monotonic()
    p = subprocess.run(cmd, capture_output=True, text=True, stdin=subprocess.DEVNULL)
    secs = time.monotonic() - t0
    v, detail = verdict(p.returncode, p.stdout, p.stderr, expect)
    return v, detail, secs, cmd, p


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("minutes", type=float, nargs="?", default=30.0)
    ap.add_argument("--seed", type=int, help="master seed (default: from the clock)")
    ap.add_argument("--replay", type=int, metavar="SEED", help="run only this run seed")
    ap.add_argument("--timeout", type=int, default=90, help="seconds per run (a hang)")
    ap.add_argument("--mpi-fraction", type=float, default=0.25)
    ap.add_argument("--no-mpi", dest="mpi", action="store_false")
    ap.add_argument("--magpie", default=str(REPO / "target" / "release" / "magpie"))
    ap.add_argument("--log", default=str(REPO / "target" / "soak"),
                    help="folder for the output of failing runs")
    a = ap.parse_args()
    if a.mpi and not shutil.which("mpirun"):
        print("soak: mpirun not found: local runs only", file=sys.stderr)
        a.mpi = False
    names = policy_names(a.magpie)
    oracles = load_oracles()
    log = Path(a.log)
    log.mkdir(parents=True, exist_ok=True)

    if a.replay is not None:
        v, detail, secs, cmd, p = run_one(a.replay, a.magpie, names, oracles, a)
        print(shlex.join(cmd))
        print(p.stdout, end="")
        print(p.stderr, end="", file=sys.stderr)
        print(f"seed {a.replay}: {v} ({secs:.2f} s) {detail}")
        return 0 if v == "ok" else 1

    master = a.seed if a.seed is not None else int(time.time())
    rng = random.Random(master)
    print(f"soak: master seed {master}, {a.minutes} min, timeout {a.timeout} s, "
          f"MPI {'on' if a.mpi else 'off'} ({a.mpi_fraction:.0%})", flush=True)
    counts = {"ok": 0, "mismatch": 0, "hang": 0, "crash": 0}
    dist_runs, failures, total_s = 0, [], 0.0
    end = time.monotonic() + a.minutes * 60
    while time.monotonic() < end:
        seed = rng.randrange(2**32)
        v, detail, secs, cmd, p = run_one(seed, a.magpie, names, oracles, a)
        counts[v] += 1
        total_s += secs
        dist_runs += cmd[4] == "mpirun"
        n = sum(counts.values())
        short = " ".join(Path(x).name if "/" in x else x for x in cmd[4:])
        print(f"[{n}] seed {seed} {v} {secs:.2f}s {short}", flush=True)
        if v != "ok":
            failures.append((seed, v, detail, shlex.join(cmd)))
            (log / f"{seed}.txt").write_text(
                f"{shlex.join(cmd)}\nverdict: {v}: {detail}\nrc {p.returncode}\n"
                f"--- stdout\n{p.stdout}\n--- stderr\n{p.stderr}\n")
            print(f"    {v}: {detail}", flush=True)
    n = sum(counts.values())
    print(f"\nsoak: {n} runs ({dist_runs} distributed) in {a.minutes} min "
          f"(mean {total_s / max(n, 1):.2f} s): {counts['ok']} ok, {counts['mismatch']} "
          f"mismatches, {counts['hang']} hangs, {counts['crash']} crashes")
    for seed, v, detail, cmd in failures:
        print(f"  {v} seed {seed}: {cmd}\n      {detail}  (log: {log / f'{seed}.txt'})")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
