#!/usr/bin/env python3
"""Tables and plots of the at-scale selection benchmark (bench/at_scale.py).

  python3 bench/at_scale_report.py [--out DIR] [--max-bytes N] [--ranks P,...] [--report FILE]
                                   [--only-points-of OTHER] [--timed-alone ALONE]
                                   [--predict-now build/tools/cli/collsel]

Reads DIR/raw/*.csv (bench/selection's rows, one file per simulation), DIR/calibration.csv and
DIR/decision_cost.csv; writes DIR/at-scale.md (the tables docs/BENCHMARKS.md quotes) and
DIR/plots/*.svg (gnuplot). Every time is a simulated time (SimGrid SMPI, one deterministic
repetition per point). Per point (platform, ranks per node, collective, P, size):

  best fixed  the fastest collsel algorithm forced (correct, not failed)
  auto        collsel's choice through the shim, with the platform's calibrated model
  penalty     auto / best fixed - 1 (Pjesivac-Grbovic et al.'s metric)
  vs mpich    auto / SMPI's MPICH selector; vs ompi likewise (< 1: collsel faster)
  smpi best   the fastest of SMPI's own algorithms and selectors; "lacks" where it beats the
              best collsel algorithm (best fixed, or auto when faster) by more than 10 %
  E_rel       (predicted - measured) / measured of each forced algorithm
"""
import argparse
import csv
import glob
import math
import os
import shutil
import statistics
import subprocess
from collections import defaultdict

HERE = os.path.dirname(os.path.realpath(__file__))
ROOT = os.path.dirname(HERE)
PLATFORMS = ["fast-ethernet", "gige", "eth25-fattree", "ib-fattree"]
COLLS = ["bcast", "scatter", "alltoall"]
SELECTORS = ("smpi:mpich", "smpi:ompi")


def human_bytes(n):
    for unit, size in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= size and n % size == 0:
            return f"{n // size} {unit}"
    return f"{n} B"


def human_time(s):
    if s is None or s != s:
        return "n/a"
    if s >= 1:
        return f"{s:.2f} s"
    if s >= 1e-3:
        return f"{s * 1e3:.2f} ms"
    return f"{s * 1e6:.1f} us"


def geomean(values):
    values = [v for v in values if v and v > 0 and v == v]
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else float("nan")


def pct(x):
    return "n/a" if x is None or x != x else f"{100 * x:.1f} %"


def load(out, max_bytes=None, ranks=None):
    """points[(platform, ppn, coll, P, bytes)] = {variant: row}; only sizes up to max_bytes and
    P in ranks if given

    The `*-choices.csv` files (at_scale.py rechoose: collsel's choice measured again after a
    change to decide() or the models) are read last, so their "auto" rows replace the first run's;
    the forced algorithms and the selectors stay as first measured. A row the driver skipped
    (`skipped` 1: its wall-time guard, no measurement) does not replace a row of the same variant
    that measured the same algorithm with the same parameters: rechoose re-runs a job's every
    size, and its guard skipped choices that had not moved (fast-ethernet P = 48, 8 per node).
    Then fill_skipped() gives a skipped row the time of the point's measurement of the same
    call."""
    points = defaultdict(dict)
    paths = sorted(glob.glob(os.path.join(out, "raw", "*.csv")),
                   key=lambda p: (p.endswith("-choices.csv"), p))
    for path in paths:
        if os.path.getsize(path) == 0:
            continue
        with open(path, newline="") as f:
            for row in csv.DictReader(f):
                platform, ppn = row["label"].split(",ppn=")
                for key in ("predicted_s", "median_s", "warmup_s"):
                    row[key] = float(row[key]) if row.get(key) not in (None, "") else float("nan")
                usable = (row["failed"] == "0" and row.get("correct", "1") == "1"
                          and row["median_s"] == row["median_s"])
                row["usable"] = usable
                row["path"] = path  # the file that holds it (at_scale.py --skipped writes there)
                key = (platform, int(ppn), row["coll"], int(row["P"]), int(row["bytes"]))
                if (max_bytes is not None and key[4] > max_bytes) or \
                        (ranks is not None and key[3] not in ranks):
                    continue
                old = points[key].get(row["variant"])
                if row.get("skipped") == "1" and old and old["usable"] and \
                        same_call(old) == same_call(row):
                    continue
                points[key][row["variant"]] = row
    for point in points.values():
        fill_skipped(point)
    return points


# The rows that measure one of collsel's algorithms: forced, or a choice of one.
ALGORITHM_KINDS = ("fixed", "auto", "choice")


def same_call(row):
    """What a row ran: algorithm, segment and window (0 where it takes none)."""
    return (row["algorithm"], int(row.get("segment_bytes") or 0), int(row.get("window") or 0))


def fill_skipped(point):
    """A row the wall guard skipped takes the time of a usable row at the same point that ran the
    same algorithm with the same segment and window, as bench/selection itself does for a choice
    that picks a variant measured before it (its `reused` column); the guard goes by variant, so
    it may skip a choice whose algorithm a later variant measured (fast-ethernet P = 48, 1 MiB:
    "auto" skipped after its 256 KiB call took 127 s, "auto:default", the same all_at_once, run).
    The simulation is deterministic: the same call takes the same time. The row's first-call cost
    (warmup_s) is not copied: a forced row's first call carries no shim set-up. A filled row
    names its source in `filled_from`."""
    measured = {same_call(r): (name, r) for name, r in point.items()
                if r["kind"] in ALGORITHM_KINDS and r["usable"]}
    for name, r in list(point.items()):
        if r["usable"] or r.get("skipped") != "1" or r["kind"] not in ALGORITHM_KINDS:
            continue
        source = measured.get(same_call(r))
        if source:
            point[name] = dict(r, median_s=source[1]["median_s"], usable=True,
                               warmup_s=float("nan"), filled_from=source[0])


def timed_alone(points, alone):
    """Every point that ALONE (a run with at_scale.py --isolated: every call timed from one
    simulated instant, with a quiet end) measured with collsel's choice replaces the same point
    of `points`, whole, so that every ratio of a point still comes from one timing. Points that
    only ALONE has are not added: the grid stays this run's. Returns how many were replaced."""
    replaced = 0
    for key, point in alone.items():
        if key in points and has_choice(point):
            points[key] = {name: dict(row, timed_alone=True) for name, row in point.items()}
            replaced += 1
    return replaced


def alone_mark(point):
    """A point timed alone (--timed-alone) is marked in the tables that list points."""
    return " (alone)" if any(r.get("timed_alone") for r in point.values()) else ""


def usable_time(point, name):
    row = point.get(name)
    return row["median_s"] if row and row["usable"] else None


def has_choice(point):
    """Whether collsel's choice through the shim ("auto") was measured at the point."""
    return usable_time(point, "auto") is not None


def analyse(point):
    fixed = {n: r["median_s"] for n, r in point.items() if r["kind"] == "fixed" and r["usable"]}
    smpi = {n: r["median_s"] for n, r in point.items()
            if r["kind"] == "library" and r["usable"]}
    a = {"auto": usable_time(point, "auto"), "default": usable_time(point, "auto:default"),
         "closed": usable_time(point, "auto:closed-form"),
         "mpich": usable_time(point, "smpi:mpich"), "ompi": usable_time(point, "smpi:ompi")}
    a["best_fixed"] = min(fixed.values()) if fixed else None
    a["best_fixed_name"] = min(fixed, key=fixed.get) if fixed else None
    a["smpi_best"] = min(smpi.values()) if smpi else None
    a["smpi_best_name"] = min(smpi, key=smpi.get) if smpi else None
    a["smpi_algorithms"] = len([n for n in smpi if n not in SELECTORS])
    a["chosen"] = point["auto"]["algorithm"] if "auto" in point else None
    a["closed_chosen"] = point["auto:closed-form"]["algorithm"] if "auto:closed-form" in point \
        else None
    a["simulated"] = point["auto"]["simulated"] == "1" if "auto" in point else False
    return a


def penalty_stats(values):
    values = [v for v in values if v is not None]
    if not values:
        return "no points", None
    return (f"{len(values)} points: mean {pct(statistics.mean(values))}, median "
            f"{pct(statistics.median(values))}, worst {pct(max(values))}", max(values))


def ratio(a, b):
    return a / b if a and b else None


def section_penalty(points, lines):
    lines.append("## collsel's penalty against its best algorithm\n")
    lines.append("penalty = time(collsel's choice) / time(fastest collsel algorithm) - 1, over "
                 "every P and size (goal: mean <= 2 %, worst <= 10 %). `default model`: the "
                 "embedded default model's choice at the same points.\n")
    lines.append("| collective | platform | ranks/node | calibrated model | default model |")
    lines.append("|---|---|---|---|---|")
    for coll in COLLS:
        for platform in PLATFORMS:
            for ppn in (1, 8):
                keys = [k for k in points if k[:3] == (platform, ppn, coll)]
                if not keys:
                    continue
                cal, dflt = [], []
                for k in keys:
                    a = analyse(points[k])
                    if a["auto"] and a["best_fixed"]:
                        cal.append(a["auto"] / a["best_fixed"] - 1)
                    if a["default"] and a["best_fixed"]:
                        dflt.append(a["default"] / a["best_fixed"] - 1)
                lines.append(f"| {coll} | {platform} | {ppn} | {penalty_stats(cal)[0]} | "
                             f"{penalty_stats(dflt)[0]} |")
    lines.append("")


def section_worst(points, lines, count=15):
    lines.append("### The worst choices\n")
    lines.append("| collective | platform | ranks/node | P | size | chose | fastest | penalty |")
    lines.append("|---|---|---|---|---|---|---|---|")
    rows = []
    for k, point in points.items():
        a = analyse(point)
        if a["auto"] and a["best_fixed"]:
            rows.append((a["auto"] / a["best_fixed"] - 1, k, a))
    rows.sort(key=lambda r: -r[0])
    for pen, (platform, ppn, coll, P, b), a in rows[:count]:
        mark = alone_mark(points[(platform, ppn, coll, P, b)])
        lines.append(f"| {coll} | {platform} | {ppn} | {P} | {human_bytes(b)}{mark} | "
                     f"{a['chosen']} | {a['best_fixed_name']} | {pct(pen)} |")
    lines.append("")


def section_selectors(points, lines):
    lines.append("## collsel against the libraries' own selectors\n")
    lines.append("time(collsel's choice) / time(SMPI's reproduction of the selector): geometric "
                 "mean, best and worst over every P and size; `slower` counts the points where "
                 "collsel is more than 1 % slower (goal: none).\n")
    lines.append("| collective | platform | ranks/node | vs MPICH: geomean (best .. worst), "
                 "slower | vs Open MPI: geomean (best .. worst), slower |")
    lines.append("|---|---|---|---|---|")
    slower = []
    for coll in COLLS:
        for platform in PLATFORMS:
            for ppn in (1, 8):
                keys = sorted(k for k in points if k[:3] == (platform, ppn, coll))
                if not keys:
                    continue
                cells = []
                for sel in ("mpich", "ompi"):
                    r = []
                    for k in keys:
                        a = analyse(points[k])
                        x = ratio(a["auto"], a[sel])
                        if x is None:
                            continue
                        r.append(x)
                        if x > 1.01:
                            slower.append((sel, k, x, a))
                    n_slow = sum(1 for x in r if x > 1.01)
                    cells.append(f"{geomean(r):.3f} ({min(r):.3f} .. {max(r):.3f}), "
                                 f"{n_slow} of {len(r)}" if r else "no points")
                lines.append(f"| {coll} | {platform} | {ppn} | {cells[0]} | {cells[1]} |")
    lines.append("")
    lines.append(f"### Every point where collsel is slower than a selector ({len(slower)})\n")
    lines.append("| selector | collective | platform | ranks/node | P | size | ratio | collsel "
                 "chose | fastest collsel algorithm |")
    lines.append("|---|---|---|---|---|---|---|---|---|")
    for sel, (platform, ppn, coll, P, b), x, a in sorted(slower, key=lambda s: -s[2]):
        mark = alone_mark(points[(platform, ppn, coll, P, b)])
        lines.append(f"| {sel} | {coll} | {platform} | {ppn} | {P} | {human_bytes(b)}{mark} | "
                     f"{x:.3f} | {a['chosen']} | {a['best_fixed_name']} "
                     f"({ratio(a['best_fixed'], a[sel]) or float('nan'):.3f}) |")
    lines.append("")


def section_lacks(points, lines):
    lines.append("## What collsel lacks: SMPI's best against collsel's best\n")
    lines.append("Points where the fastest of SMPI's algorithms and selectors beats the fastest "
                 "collsel algorithm by more than 10 % (goal: none), counted by SMPI's winner. "
                 "collsel's fastest: of its algorithms forced, and of its choice as the shim ran "
                 "it (a forced run keeps the segment decide() chose when it was made; the choice "
                 "is re-measured whenever decide() changes it).\n")
    by_winner = defaultdict(list)
    total = 0
    with_own = defaultdict(int)  # (platform, ppn, P) -> points where SMPI's own algorithms ran
    for k, point in points.items():
        a = analyse(point)
        # Only where collsel's own job ran (its choice was measured): an algorithm added later
        # (at_scale.py extend) also runs where that job stopped early, and alone it is not
        # "collsel's best".
        if not (a["smpi_best"] and a["best_fixed"] and a["auto"]):
            continue
        total += 1
        if a["smpi_algorithms"]:
            with_own[(k[0], k[1], k[3])] += 1
        # collsel's best: its fastest algorithm, forced or as its choice ran it. A forced run
        # takes the segment its decide() chose when that run was made; the choice, re-measured
        # by rechoose, the current one, which may be faster.
        best = min(a["best_fixed"], a["auto"])
        if best / a["smpi_best"] > 1.10:
            by_winner[a["smpi_best_name"]].append((k, best / a["smpi_best"]))
    lines.append(f"{sum(len(v) for v in by_winner.values())} of {total} points.\n")
    # What "SMPI's best" was taken over: elsewhere only its MPICH and Open MPI selectors ran.
    own = sum(with_own.values())
    where = "; ".join(f"{p} at {ppn} per node, P = {P}: {n}"
                      for (p, ppn, P), n in sorted(with_own.items(),
                                                   key=lambda kv: (PLATFORMS.index(kv[0][0]),
                                                                   kv[0][1], kv[0][2])))
    lines.append(f"SMPI's own algorithms (not only its two selectors) were simulated at {own} of "
                 f"these {total} points" + (f" ({where})" if where else "") + "; at the others "
                 "SMPI's best is the faster of its MPICH and Open MPI selectors.\n")
    lines.append("| SMPI's winner | points | collectives | platforms | P | sizes | collsel best / "
                 "SMPI best: median (worst) |")
    lines.append("|---|---|---|---|---|---|---|")
    for name, items in sorted(by_winner.items(), key=lambda kv: -len(kv[1])):
        keys = [k for k, _ in items]
        r = [x for _, x in items]
        sizes = sorted({k[4] for k in keys})
        lines.append(f"| {name} | {len(items)} | {', '.join(sorted({k[2] for k in keys}))} | "
                     f"{', '.join(p for p in PLATFORMS if p in {k[0] for k in keys})} | "
                     f"{', '.join(str(p) for p in sorted({k[3] for k in keys}))} | "
                     f"{human_bytes(sizes[0])} .. {human_bytes(sizes[-1])} | "
                     f"{statistics.median(r):.2f} ({max(r):.2f}) |")
    lines.append("")


def forced_erel(r):
    """The signed E_rel of a usable forced row with a prediction, else None."""
    if r["kind"] == "fixed" and r["usable"] and r["predicted_s"] == r["predicted_s"] \
            and r["median_s"] > 0:
        return (r["predicted_s"] - r["median_s"]) / r["median_s"]
    return None


def section_erel(points, lines, now=False):
    lines.append("## Model error\n")
    lines.append("Median |E_rel| of each forced algorithm's prediction (the platform's calibrated "
                 "model; at 8 ranks per node, simulated on the placement where the model says so), "
                 "over every P and size; "
                 + ("predicted now by `collsel explain` with the models in this folder.\n" if now
                    else "as logged when each point was simulated.\n"))
    for ppn in (1, 8):
        lines.append(f"### {ppn} rank{'s' if ppn > 1 else ''} per node\n")
        lines.append("| algorithm | " + " | ".join(PLATFORMS) + " |")
        lines.append("|---|" + "---|" * len(PLATFORMS))
        errors = defaultdict(list)
        for (platform, p, coll, P, b), point in points.items():
            if p != ppn:
                continue
            for name, r in point.items():
                e = forced_erel(r)
                if e is not None:
                    errors[(name, platform)].append(abs(e))
        names = sorted({n for n, _ in errors}, key=lambda n: (COLLS.index(n.split(".")[0]), n))
        for name in names:
            cells = [pct(statistics.median(errors[(name, p)])) if errors[(name, p)] else "n/a"
                     for p in PLATFORMS]
            lines.append(f"| {name} | " + " | ".join(cells) + " |")
        lines.append("")
        # The medians above mix in the sizes a segmented algorithm sends as one segment (its
        # plain twin's error); its pipeline shows only where it cut the message.
        pipelined = defaultdict(list)
        for (platform, p, coll, P, b), point in points.items():
            if p != ppn:
                continue
            for name, r in point.items():
                segment = int(r.get("segment_bytes") or 0)
                # bcast.split_binary cuts each half of the message, and is always segmented.
                split = name == "bcast.split_binary"
                cut_bytes = (b + 1) // 2 if split else b
                e = forced_erel(r)
                if e is not None and (name.endswith("_segmented") or split) and \
                        0 < segment < cut_bytes:
                    pipelined[(name, platform)].append(e)
        if pipelined:
            lines.append("Segmented algorithms over the rows they cut into two segments or more: "
                         "median |E_rel| (median signed E_rel, rows).\n")
            lines.append("| algorithm | " + " | ".join(PLATFORMS) + " |")
            lines.append("|---|" + "---|" * len(PLATFORMS))
            for name in sorted({n for n, _ in pipelined}):
                cells = []
                for platform in PLATFORMS:
                    e = pipelined.get((name, platform))
                    cells.append(f"{pct(statistics.median([abs(x) for x in e]))} "
                                 f"({pct(statistics.median(e))}, {len(e)})" if e else "n/a")
                lines.append(f"| {name} | " + " | ".join(cells) + " |")
            lines.append("")


def section_erel_by_size(points, lines, csv_path=None):
    """Model error per size: the table aggregates over the forced algorithms and P; csv_path
    (OUT/erel.csv) gets every (platform, ranks per node, collective, algorithm, size) cell."""
    cells = defaultdict(list)  # (platform, ppn, coll, algorithm, bytes) -> signed E_rel over P
    for (platform, ppn, coll, P, b), point in points.items():
        for name, r in point.items():
            e = forced_erel(r)
            if e is not None:
                cells[(platform, ppn, coll, name, b)].append(e)
    if not cells:
        return
    if csv_path:
        with open(csv_path, "w", newline="") as f:
            writer = csv.writer(f, lineterminator="\n")
            writer.writerow(["platform", "ranks_per_node", "coll", "algorithm", "bytes",
                             "median_abs_erel", "median_erel", "points"])
            for key in sorted(cells, key=lambda k: (PLATFORMS.index(k[0]), k[1],
                                                    COLLS.index(k[2]), k[3], k[4])):
                e = cells[key]
                writer.writerow([*key, f"{statistics.median(abs(x) for x in e):.4f}",
                                 f"{statistics.median(e):.4f}", len(e)])
    lines.append("### By size\n")
    lines.append("Median |E_rel| over the forced algorithms and every P at each size (median "
                 "signed E_rel: negative, the model predicts too little). Per algorithm and size: "
                 "erel.csv beside this file.\n")
    for ppn in (1, 8):
        by_size = defaultdict(list)
        for (platform, p, coll, name, b), e in cells.items():
            if p == ppn:
                by_size[(coll, b, platform)] += e
        if not by_size:
            continue
        lines.append(f"{ppn} rank{'s' if ppn > 1 else ''} per node:\n")
        lines.append("| collective | size | " + " | ".join(PLATFORMS) + " |")
        lines.append("|---|---|" + "---|" * len(PLATFORMS))
        for coll, b in sorted({(c, b) for c, b, _ in by_size},
                              key=lambda k: (COLLS.index(k[0]), k[1])):
            row = []
            for platform in PLATFORMS:
                e = by_size.get((coll, b, platform))
                row.append(f"{pct(statistics.median(abs(x) for x in e))} "
                           f"({pct(statistics.median(e))})" if e else "n/a")
            lines.append(f"| {coll} | {human_bytes(b)} | " + " | ".join(row) + " |")
        lines.append("")


def predict_now(points, out, cli):
    """Replaces every forced row's logged prediction by what `collsel explain` (cli) predicts now
    with OUT/models/PLATFORM.toml, at the row's ranks per node (filled placement, as the shim
    finds it under simcluster): the model error of today's models on the stored times. A
    segmented algorithm is predicted at the segment size it ran with (the row's segment_bytes,
    given to explain as a config's [override] segment_bytes), not at the one today's model
    would pick: a prediction for another segment is not this row's error."""
    import concurrent.futures
    import tempfile

    from at_scale import explain as explain_point  # the same command as rechoose's

    import threading

    configs = tempfile.TemporaryDirectory(prefix="at_scale_report-")
    # The explain threads share the files: two of them writing the same one raced on its .tmp
    # (one renamed it away under the other), so one writes at a time.
    writing = threading.Lock()

    def config_for(segment):
        path = os.path.join(configs.name, f"segment-{segment}.toml")
        with writing:
            if not os.path.exists(path):
                with open(path + ".tmp", "w") as f:
                    f.write(f"[override]\nsegment_bytes = {segment}\n")
                os.replace(path + ".tmp", path)
        return path

    def explain(key):
        platform, ppn, coll, P, b = key
        table = explain_point(cli, out, platform, P, ppn, coll, b)["table"]
        predicted = {e["name"]: e["predicted_s"] for e in table
                     if e["applicable"] and e["predicted_s"] is not None}
        segmented = {e["name"] for e in table if e.get("segmented")}
        by_segment = defaultdict(list)
        for name, row in points[key].items():
            segment = int(row.get("segment_bytes") or 0)
            if row["kind"] == "fixed" and name in segmented and segment > 0:
                by_segment[segment].append(name)
        for segment, names in by_segment.items():
            table = explain_point(cli, out, platform, P, ppn, coll, b, config_for(segment))["table"]
            for e in table:
                if e["name"] in names and e["applicable"] and e["predicted_s"] is not None:
                    predicted[e["name"]] = e["predicted_s"]
        return key, predicted

    with configs, concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        for key, predicted in pool.map(explain, list(points)):
            for name, row in points[key].items():
                if row["kind"] == "fixed":
                    row["predicted_s"] = predicted.get(name, float("nan"))


def section_placement(points, lines):
    lines.append("## Placement-aware prediction (8 ranks per node)\n")
    lines.append("collsel's choice simulating schedules on the placement (the shim's) against "
                 "the choice of the closed forms alone (`auto:closed-form`), at the points where "
                 "the two differ.\n")
    lines.append("| collective | platform | points | simulated | choices differ | placement-aware "
                 "faster / slower | geomean time ratio where they differ |")
    lines.append("|---|---|---|---|---|---|---|")
    for coll in COLLS:
        for platform in PLATFORMS:
            keys = [k for k in points if k[:3] == (platform, 8, coll)]
            rows = [analyse(points[k]) for k in keys]
            rows = [a for a in rows if a["auto"] and a["closed"]]
            if not rows:
                continue
            differ = [a for a in rows if a["chosen"] != a["closed_chosen"]]
            faster = sum(1 for a in differ if a["auto"] < a["closed"] * 0.99)
            slower = sum(1 for a in differ if a["auto"] > a["closed"] * 1.01)
            lines.append(f"| {coll} | {platform} | {len(rows)} | "
                         f"{sum(1 for a in rows if a['simulated'])} | {len(differ)} | "
                         f"{faster} / {slower} | "
                         f"{geomean([a['auto'] / a['closed'] for a in differ]):.3f} |")
    lines.append("")


def section_cost(points, out, lines):
    lines.append("## Calibration against measuring everything\n")
    calibration = {}
    path = os.path.join(out, "calibration.csv")
    if os.path.exists(path):
        with open(path, newline="") as f:
            calibration = {r["platform"]: r for r in csv.DictReader(f)}
    lines.append("Calibration: `collsel-calibrate` at 16 ranks, 2 per node, in simulation. "
                 "Exhaustive: every collsel algorithm run once at every point of this benchmark "
                 "(the sum of their simulated times), what an autotuner that tries everything "
                 "would spend.\n")
    lines.append("| platform | calibration: simulated | calibration: wall | exhaustive: simulated "
                 "| points |")
    lines.append("|---|---|---|---|---|")
    for platform in PLATFORMS:
        total, n = 0.0, 0
        for k, point in points.items():
            if k[0] != platform:
                continue
            n += 1
            total += sum(r["median_s"] for r in point.values()
                         if r["kind"] == "fixed" and r["usable"])
        c = calibration.get(platform, {})
        lines.append(f"| {platform} | {c.get('simulated_s', 'n/a')} s | {c.get('wall_s', 'n/a')}"
                     f" s | {total:.1f} s | {n} |")
    lines.append("")


def section_decide(points, out, lines):
    lines.append("## What a decision costs\n")
    path = os.path.join(out, "decision_cost.csv")
    if os.path.exists(path):
        lines.append("`decide()` for a new call shape (wall time on this machine, median; "
                     "`build/bench/decision_cost --scale docs/benchmarks/at-scale/models/"
                     "ib-fattree.toml`). At 8 ranks per node the model's [contention] section "
                     "makes it simulate every algorithm's schedule on the placement (simulated = "
                     "1) up to 4096 messages; at 1 per node only the All-to-All, where a "
                     "block's link time hides its receive overhead (1 MiB, not 1 KiB) and P <= "
                     "64. `+ N explore`: what `[adapt] mode = \"explore\"` "
                     "adds to it, plan_adapt() (the runners-up, and each segmented one's segment "
                     "at 4x and 1/4, predicted, simulated at 8 per node), where measured.\n")
        lines.append("| P | ranks/node | Bcast 16 B | Bcast 1 MiB | Scatter 16 KiB | "
                     "Alltoall 1 KiB | Alltoall 1 MiB |")
        lines.append("|---|---|---|---|---|---|---|")
        table = defaultdict(dict)
        with open(path, newline="") as f:
            for r in csv.DictReader(f):
                plan = r.get("explore_plan_s")
                cell = human_time(float(r["decide_s"])) + (" (sim.)" if r["simulated"] == "1" else "")
                if plan:
                    cell += f" + {human_time(float(plan))} explore"
                table[(int(r["P"]), int(r["ranks_per_node"]))][(r["coll"], int(r["bytes"]))] = cell
        for (P, ppn), row in sorted(table.items()):
            cells = [row.get(c, "") for c in (("bcast", 16), ("bcast", 1 << 20),
                                               ("scatter", 16384), ("alltoall", 1024),
                                               ("alltoall", 1 << 20))]
            lines.append(f"| {P} | {ppn} | " + " | ".join(cells) + " |")
        lines.append("")
    lines.append("First call of the run through the shim (simulated): the first call's time "
                 "minus the same call's steady time, at each job's first size: the private "
                 "communicator's duplication and, at 8 ranks per node, the placement gather "
                 "(`decide()`'s CPU time is not simulated; it is the table above).\n")
    lines.append("| P | ranks/node | median over platforms and collectives |")
    lines.append("|---|---|---|")
    first = defaultdict(list)
    smallest = {}
    for (platform, ppn, coll, P, b) in points:
        key = (platform, ppn, coll, P)
        smallest[key] = min(b, smallest.get(key, b))
    for key, b in smallest.items():
        row = points[(*key, b)].get("auto")
        if row and row["usable"] and row["warmup_s"] == row["warmup_s"]:
            first[(key[3], key[1])].append(row["warmup_s"] - row["median_s"])
    for (P, ppn), v in sorted(first.items()):
        lines.append(f"| {P} | {ppn} | {human_time(statistics.median(v))} |")
    lines.append("")


def plots(points, out):
    gnuplot = shutil.which("gnuplot")
    if not gnuplot:
        return []
    made = []
    os.makedirs(os.path.join(out, "plots"), exist_ok=True)
    for coll in COLLS:
        for ppn in (1, 8):
            for P in (64, 256):
                data = {}
                for platform in PLATFORMS:
                    rows = []
                    for k in sorted(k for k in points if k[:4] == (platform, ppn, coll, P)):
                        a = analyse(points[k])
                        if not a["best_fixed"]:
                            continue
                        rel = lambda x: x / a["best_fixed"] if x else float("nan")
                        rows.append(f"{k[4]} {rel(a['auto'])} {rel(a['mpich'])} {rel(a['ompi'])} "
                                    f"{rel(a['smpi_best'])}")
                    if rows:
                        data[platform] = rows
                if not data:
                    continue
                name = f"{coll}-P{P}-ppn{ppn}"
                dat = os.path.join(out, "plots", name + ".dat")
                with open(dat, "w") as f:
                    for platform in PLATFORMS:
                        f.write("\n".join(data.get(platform, ["1 nan nan nan nan"])) + "\n\n\n")
                script = [f"set terminal svg size 1000,700 dynamic font 'sans,10'",
                          f"set output '{os.path.join(out, 'plots', name + '.svg')}'",
                          "set multiplot layout 2,2 title "
                          f"'{coll}, P = {P}, {ppn} rank(s) per node: time / fastest collsel "
                          "algorithm (simulated)'",
                          "set logscale x 4", "set logscale y", "set format x '%.0s%cB'",
                          "set grid", "set key top left font ',8'"]
                for i, platform in enumerate(PLATFORMS):
                    script += [f"set title '{platform}'",
                               f"plot '{dat}' index {i} using 1:2 with linespoints title 'collsel', "
                               f"'' index {i} using 1:3 with linespoints title 'MPICH selector', "
                               f"'' index {i} using 1:4 with linespoints title 'Open MPI selector', "
                               f"'' index {i} using 1:5 with linespoints title 'SMPI best'"]
                script.append("unset multiplot")
                subprocess.run([gnuplot], input="\n".join(script), text=True, check=False,
                               capture_output=True)
                os.remove(dat)
                made.append(name + ".svg")
    return made


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default=os.path.join(ROOT, "docs", "benchmarks", "at-scale"))
    parser.add_argument("--max-bytes", type=int,
                        help="only the points up to this size (with --report: the tables of "
                             "another run's size range, to set beside it)")
    parser.add_argument("--ranks", type=lambda v: [int(x) for x in v.split(",")],
                        help="only the points with these P (comma-separated)")
    parser.add_argument("--predict-now", metavar="COLLSEL",
                        help="the model error from what this collsel CLI's explain predicts now "
                             "with OUT/models, not from the predictions logged when each point "
                             "was simulated (e.g. build/tools/cli/collsel)")
    parser.add_argument("--only-points-of", metavar="OTHER",
                        help="only the points where OTHER (another run's folder) has collsel's "
                             "choice too, so that two runs' tables cover the same points")
    parser.add_argument("--timed-alone", metavar="ALONE",
                        help="where ALONE (a run with at_scale.py --isolated) has a point with "
                             "collsel's choice, take that point whole from it (marked "
                             "'(alone)'); use with --report, the tables of the best timing each "
                             "point has")
    parser.add_argument("--report", help="write the tables here instead of OUT/at-scale.md, "
                                         "without plots")
    args = parser.parse_args()
    points = load(args.out, args.max_bytes, args.ranks)
    if args.only_points_of:
        other = load(args.only_points_of, args.max_bytes, args.ranks)
        points = {k: v for k, v in points.items()
                  if k in other and has_choice(other[k]) and has_choice(v)}
    replaced = timed_alone(points, load(args.timed_alone, args.max_bytes, args.ranks)) \
        if args.timed_alone else 0
    if args.predict_now:
        predict_now(points, args.out, args.predict_now)
    lines = ["# At scale: the selection benchmark on simulated clusters (generated by "
             "bench/at_scale_report.py)\n",
             f"{len(points)} points (platform x ranks per node x collective x P x size"
             + (f", sizes up to {human_bytes(args.max_bytes)}" if args.max_bytes else "")
             + (f", P in {args.ranks}" if args.ranks else "")
             + (f", only those {args.only_points_of} has" if args.only_points_of else "")
             + f", from {args.out}). Every time is simulated (SimGrid 3.32 SMPI, "
             "docs/SIMULATION.md).\n"]
    if args.timed_alone:
        lines.append(f"{replaced} of these points are taken whole from {args.timed_alone}, where "
                     "every call was timed alone (one start instant, a quiet end: at_scale.py "
                     "--isolated); the tables that list points mark them '(alone)'. The others "
                     "are this run's, under its usual timing.\n")
    filled = sum(1 for p in points.values() for r in p.values() if r.get("filled_from"))
    if filled:
        lines.append(f"{filled} rows that the driver's wall guard skipped take the time of "
                     "another row at the same point that ran the same algorithm with the same "
                     "segment and window (the simulation is deterministic; bench/selection "
                     "reuses a measurement the same way, its `reused` column).\n")
    coverage = defaultdict(set)
    for (platform, ppn, coll, P, b) in points:
        coverage[(coll, ppn)].add(P)
    lines.append("Coverage: " + "; ".join(f"{c} at {ppn}/node: P = "
                                         f"{', '.join(str(p) for p in sorted(ps))}"
                                         for (c, ppn), ps in sorted(coverage.items())) + "\n")
    section_penalty(points, lines)
    section_worst(points, lines)
    section_selectors(points, lines)
    section_lacks(points, lines)
    section_erel(points, lines, bool(args.predict_now))
    section_erel_by_size(points, lines,
                         None if args.report else os.path.join(args.out, "erel.csv"))
    section_placement(points, lines)
    section_cost(points, args.out, lines)
    section_decide(points, args.out, lines)
    made = [] if args.report else plots(points, args.out)
    if made:
        lines.append("## Plots\n")
        lines += [f"![{m}](plots/{m})" for m in made]
    report = args.report or os.path.join(args.out, "at-scale.md")
    with open(report, "w") as f:
        f.write("\n".join(lines) + "\n")
    print(f"at_scale_report: {len(points)} points -> {report}, {len(made)} plots")


if __name__ == "__main__":
    main()
