#!/usr/bin/env python3
"""Turns the CSV of bench/selection into a markdown report and plots.

Per (label, collective, P) and message size: the fastest fixed algorithm, collsel's choice
("auto"), the native collective, and the ratios
  penalty  = time(auto) / time(best fixed)   (1.00: collsel picked the fastest)
  vs native = time(auto) / time(native)      (< 1: collsel is faster than the MPI library's own choice)
  model    = predicted(auto) / measured(auto)
all on medians; spread is the interquartile range relative to the median. Because the emulated
cluster's small calls are bimodal (a scheduler stall of ~8 ms or none, docs/EMUCLUSTER.md), the
ratios are also given on the minimums, the calls that met no stall. A summary gives the
geometric means and worst cases. With --plot-dir, one SVG per (label, collective, P): median time
against size for every variant (log-log), collsel's choice marked (needs gnuplot).

Usage: selection_report.py CSV... [--markdown OUT.md] [--plot-dir DIR]
"""
import argparse
import csv
import math
import os
import re
import shutil
import subprocess
import sys
from collections import defaultdict


NETWORK_BOUND_S = 0.08


def human_bytes(n):
    for unit, size in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= size and n % size == 0:
            return f"{n // size} {unit}"
    return f"{n} B"


def human_time(s):
    if s != s:  # NaN
        return "n/a"
    if s >= 1:
        return f"{s:.2f} s"
    if s >= 1e-3:
        return f"{s * 1e3:.2f} ms"
    return f"{s * 1e6:.1f} us"


def geomean(values):
    values = [v for v in values if v > 0 and v == v]
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else float("nan")


def load(paths):
    groups = defaultdict(lambda: defaultdict(dict))  # (label, coll, P) -> bytes -> variant -> row
    for path in paths:
        with open(path, newline="") as f:
            for row in csv.DictReader(f):
                for key in ("predicted_s", "median_s", "p25_s", "p75_s", "min_s", "max_s"):
                    row[key] = float(row[key])
                key = (row["label"], row["coll"], int(row["P"]))
                groups[key][int(row["bytes"])][row["variant"]] = row
    return groups


def analyse(points):
    """One dict per size with the comparisons; sizes ascending."""
    out = []
    for size in sorted(points):
        variants = points[size]
        auto, native = variants.get("auto"), variants.get("native")
        fixed = [r for name, r in variants.items() if name not in ("auto", "native")]
        if not auto or not native or not fixed:
            continue
        best = min(fixed, key=lambda r: r["median_s"])
        out.append({
            "bytes": size,
            "best": best,
            "auto": auto,
            "native": native,
            "penalty": auto["median_s"] / best["median_s"],
            # On the minimums: the call that met no scheduler stall (docs/EMUCLUSTER.md).
            "penalty_min": auto["min_s"] / min(r["min_s"] for r in fixed),
            "vs_native_min": auto["min_s"] / native["min_s"],
            "vs_native": auto["median_s"] / native["median_s"],
            "model": auto["predicted_s"] / auto["median_s"],
            "spread": (auto["p75_s"] - auto["p25_s"]) / auto["median_s"],
            "reps": int(auto["reps"]),
        })
    return out


def markdown(groups):
    lines = []
    summary = []
    for key in sorted(groups):
        label, coll, P = key
        rows = analyse(groups[key])
        if not rows:
            continue
        title = f"{coll}, P = {P}" + (f", {label}" if label else "")
        lines += [f"#### {title}", "",
                  "| size | best fixed | collsel's choice | native | auto / best | auto / native "
                  "| predicted / measured | IQR / median (auto) | auto / best, minimums |",
                  "|---|---|---|---|---|---|---|---|---|"]
        for r in rows:
            seg = int(r["auto"]["segment_bytes"])
            window = int(r["auto"].get("window") or 0)
            choice = r["auto"]["algorithm"] + (f" ({human_bytes(seg)})" if seg else "") + \
                (f" (k = {window})" if window else "")
            lines.append(
                f"| {human_bytes(r['bytes'])} | {r['best']['variant']} "
                f"{human_time(r['best']['median_s'])} | {choice} {human_time(r['auto']['median_s'])} "
                f"| {human_time(r['native']['median_s'])} | {r['penalty']:.2f} "
                f"| {r['vs_native']:.2f} | {r['model']:.2f} | {r['spread']:.2f} "
                f"| {r['penalty_min']:.2f} |")
        lines.append("")
        # Network-bound points: the fastest fixed algorithm takes at least 10 scheduler stalls
        # (~8 ms each, docs/EMUCLUSTER.md), so a stall cannot decide the comparison.
        bound = [r for r in rows if r["best"]["median_s"] >= NETWORK_BOUND_S]
        worst = max(rows, key=lambda r: r["penalty"])
        worst_native = max(rows, key=lambda r: r["vs_native"])
        summary.append(
            f"| {title} | {len(rows)} | {geomean([r['penalty'] for r in rows]):.2f} "
            f"| {worst['penalty']:.2f} at {human_bytes(worst['bytes'])} "
            f"| {sum(r['penalty'] <= 1.05 for r in rows)} "
            f"| {geomean([r['vs_native'] for r in rows]):.2f} "
            f"| {worst_native['vs_native']:.2f} at {human_bytes(worst_native['bytes'])} "
            f"| {geomean([r['model'] for r in rows]):.2f} "
            f"| {geomean([r['penalty_min'] for r in rows]):.2f} "
            f"| {geomean([r['vs_native_min'] for r in rows]):.2f} "
            f"| {len(bound)} | {geomean([r['penalty'] for r in bound]):.2f} "
            f"| {max((r['penalty'] for r in bound), default=float('nan')):.2f} "
            f"| {geomean([r['vs_native'] for r in bound]):.2f} |")
    head = ["| series | sizes | auto / best (geomean) | worst | within 5 % of best "
            "| auto / native (geomean) | worst vs native | predicted / measured (geomean) "
            "| auto / best, minimums (geomean) | auto / native, minimums (geomean) "
            "| network-bound sizes | their auto / best (geomean) | their worst auto / best "
            "| their auto / native (geomean) |",
            "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    return "\n".join(head + summary + [""] + lines)


def plot(groups, plot_dir):
    gnuplot = shutil.which("gnuplot")
    if not gnuplot:
        print("selection_report: gnuplot not found (apt-get install gnuplot-nox); no plots",
              file=sys.stderr)
        return []
    os.makedirs(plot_dir, exist_ok=True)
    made = []
    for key in sorted(groups):
        label, coll, P = key
        points = groups[key]
        names = sorted({v for size in points for v in points[size]} - {"auto"})
        stem = re.sub(r"[^A-Za-z0-9]+", "-", "_".join(x for x in (label, coll, f"P{P}") if x))
        data = os.path.join(plot_dir, stem + ".dat")
        with open(data, "w") as f:
            for name in names + ["auto"]:
                f.write(f"# {name}\n")
                for size in sorted(points):
                    row = points[size].get(name)
                    if row:
                        f.write(f"{max(size, 1)} {row['median_s']} {row['p25_s']} {row['p75_s']}\n")
                f.write("\n\n")
        svg = os.path.join(plot_dir, stem + ".svg")
        curves = []
        for i, name in enumerate(names):
            style = "lw 3 dt 2 lc rgb 'black'" if name == "native" else f"lw 1.5 lc {i + 1}"
            curves.append(f"'{data}' index {i} using 1:2 with linespoints {style} pt 7 ps 0.5 "
                          f"title '{name}'")
        curves.append(f"'{data}' index {len(names)} using 1:2:3:4 with yerrorbars pt 6 ps 2 "
                      f"lw 2 lc rgb 'red' title \"collsel's choice (IQR)\"")
        title = f"{coll}, P = {P}" + (f", {label}" if label else "")
        script = "\n".join([
            "set terminal svg size 1000,650 dynamic font 'sans,11' noenhanced",
            f"set output '{svg}'",
            f"set title \"{title}: median time per call\"",
            "set logscale xy", "set xlabel 'message size (bytes; Scatter: per rank)'",
            "set ylabel 'seconds'", "set key outside right top", "set grid",
            "set format x '%.0s%cB'", "set format y '%.0s%cs'",
            "plot " + ", \\\n  ".join(curves), ""])
        subprocess.run([gnuplot], input=script, text=True, check=True)
        made.append(svg)
    return made


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("csv", nargs="+", help="CSV files written by bench/selection")
    parser.add_argument("--markdown", help="write the report here (default: stdout)")
    parser.add_argument("--plot-dir", help="write one SVG per series here (needs gnuplot)")
    args = parser.parse_args()
    groups = load(args.csv)
    text = markdown(groups)
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(text)
    else:
        print(text)
    if args.plot_dir:
        for svg in plot(groups, args.plot_dir):
            print(f"selection_report: wrote {svg}", file=sys.stderr)


if __name__ == "__main__":
    main()
