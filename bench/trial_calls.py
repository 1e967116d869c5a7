#!/usr/bin/env python3
"""The monitor's trial calls in one run's logs (docs/ADAPT.md, docs/BENCHMARKS.md "Self-correction").

For every shape of a run (a collective and a message size; communicators of one rank left out) it
lists the calls whose rung is not `model`: the call's index in the shape (from 0), the algorithm,
its segment, its rung (`explore`: a trial call; `measured`: the kept runner-up), and the call's
time on its slowest and its fastest rank; then, for context, the median of the shape's slowest-rank
times over the calls that ran the model's choice or the kept algorithm.

  python3 bench/trial_calls.py DIR/r1-gap_sx0.3333/explore          # adapt_demo.py --keep-logs
  python3 bench/trial_calls.py collsel-logs/20261128-235624-p25964  # one run's folder

RUN is a run's folder (rank-*.jsonl, docs/LOGS.md) or a folder of runs (the newest is read). The
trace must hold every call: adapt_demo.py runs with COLLSEL_LOG_TRACES_PER_SITE=0.
"""
import argparse
import collections
import json
import pathlib
import statistics
import sys


def run_folder(path):
    path = pathlib.Path(path)
    if any(path.glob("rank-*.jsonl")):
        return path
    runs = sorted(p for p in path.iterdir() if p.is_dir() and any(p.glob("rank-*.jsonl")))
    if not runs:
        sys.exit(f"trial_calls.py: no rank-*.jsonl in {path} or its folders")
    return runs[-1]


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog=__doc__.split("\n\n", 1)[1])
    p.add_argument("run", metavar="RUN")
    args = p.parse_args()
    folder = run_folder(args.run)
    shapes = collections.defaultdict(lambda: collections.defaultdict(list))
    for rank_file in sorted(folder.glob("rank-*.jsonl")):
        seen = collections.Counter()
        for line in rank_file.read_text().splitlines():
            r = json.loads(line)
            if r.get("type") != "call" or r.get("comm_size", 1) < 2:
                continue
            shape = f"{r['coll']}-{r['bytes']}"
            shapes[shape][seen[shape]].append(r)
            seen[shape] += 1
    print(f"run: {folder}")
    for shape, calls in shapes.items():
        slowest = {i: max(x["actual_s"] for x in rs) for i, rs in calls.items()}
        steady = [slowest[i] for i, rs in calls.items() if rs[0]["rung"] != "explore"]
        trials = [(i, rs) for i, rs in sorted(calls.items()) if rs[0]["rung"] == "explore"]
        median = statistics.median(steady) * 1e3 if steady else float("nan")
        print(f"{shape}: {len(calls)} calls, {len(trials)} trial calls; median of the others "
              f"{median:.1f} ms (slowest rank)")
        for i, rs in trials:
            seg = rs[0].get("segment_bytes")
            print(f"  call {i:4d}  {rs[0]['algorithm']:<28} {'' if seg is None else seg:>8}  "
                  f"slowest {slowest[i] * 1e3:8.1f} ms  fastest "
                  f"{min(x['actual_s'] for x in rs) * 1e3:8.1f} ms")


if __name__ == "__main__":
    main()
