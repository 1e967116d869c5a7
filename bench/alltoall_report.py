#!/usr/bin/env python3
"""The All-to-All tables of docs/BENCHMARKS.md from bench/alltoall.sh's outputs.

  alltoall_report.py --out alltoall.md --models model-*.toml --validations validation-*-P*.csv
                     --selection selection.csv

Three tables: the fitted contention signature per profile (from the model files); the prediction
error of every schedule at each P (from collsel-calibrate --validate's CSVs, E_rel =
(predicted - measured) / measured on medians); and, from one interleaved run per (profile, P,
size), the median time of collsel's choice and every other variant as a ratio to it.
"""
import argparse
import csv
import pathlib
import re
import statistics
import sys
import tomllib
from collections import defaultdict

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from selection_report import human_bytes, human_time  # noqa: E402


def profile_of(path):
    match = re.search(r"(?:model|validation)-(.+?)(?:-P\d+)?\.(?:toml|csv)$", path.name)
    return match.group(1) if match else path.stem


def signature_table(models):
    lines = ["| profile | n' | alpha | beta (1/bandwidth) | gamma | delta | M | fit: rms, max "
             "|E_rel| (points) | beta_F | beta_C | rho: 1 in flight .. all at once |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for path in models:
        doc = tomllib.loads(path.read_text())
        a = doc.get("alltoall")
        if a is None:
            lines.append(f"| {profile_of(path)} | (no [alltoall] section) |||||||||")
            continue
        m = a.get("delta_from_bytes")
        lines.append(
            f"| {profile_of(path)} | {a['sample_ranks']} | {human_time(float(a['alpha_s']))} "
            f"| {a['beta_s_per_byte']:.4g} s/B ({1e-6 / a['beta_s_per_byte']:.1f} MB/s) "
            f"| {a['gamma']:.4g} | {human_time(float(a['delta_s']))} "
            f"| {human_bytes(int(m)) if m is not None else 'none'} "
            f"| {100 * a['fit_rms_rel']:.1f} %, {100 * a['fit_max_abs_rel']:.1f} % "
            f"({a['fit_points']}) "
            f"| {a['beta_free_s_per_byte']:.4g} | {a['beta_contention_s_per_byte']:.4g} "
            f"| {a['rho_single']:.3f} .. {a['rho_flood']:.3f} |")
    return lines


def validation_tables(paths):
    rows = defaultdict(list)  # (profile, P) -> rows
    for path in paths:
        with open(path) as f:
            for r in csv.DictReader(f):
                if r["coll"] != "alltoall":
                    continue
                rows[(profile_of(path), int(r["P"]))].append(r)
    algos = sorted({r["algorithm"] for rs in rows.values() for r in rs})
    lines = ["Median |E_rel| per schedule over the sizes, and the model's choice against the "
             "measured fastest:", "",
             "| profile | P | " + " | ".join(a.replace("alltoall.", "") for a in algos)
             + " | choice within 5 % of best | worst choice / best |",
             "|---|---|" + "---|" * len(algos) + "---|---|"]
    detail = ["Direct exchange (the signature's own schedule), E_rel per size:", "",
              "| profile | P | " + " | ".join(
                  human_bytes(int(b)) for b in sorted({int(r["bytes"]) for rs in rows.values()
                                                  for r in rs})) + " |"]
    sizes_all = sorted({int(r["bytes"]) for rs in rows.values() for r in rs})
    detail.append("|---|---|" + "---|" * len(sizes_all))
    for (profile, P), rs in sorted(rows.items()):
        cells = []
        for a in algos:
            errs = [abs(float(r["e_rel"])) for r in rs if r["algorithm"] == a]
            cells.append(f"{100 * statistics.median(errs):.0f} %" if errs else "-")
        by_size = defaultdict(list)
        for r in rs:
            by_size[int(r["bytes"])].append(r)
        within, worst = 0, 1.0
        for size, group in by_size.items():
            chosen = min(group, key=lambda r: float(r["predicted_s"]))
            best = min(float(r["median_s"]) for r in group)
            ratio = float(chosen["median_s"]) / best
            within += ratio <= 1.05
            worst = max(worst, ratio)
        lines.append(f"| {profile} | {P} | " + " | ".join(cells)
                     + f" | {within} of {len(by_size)} | {worst:.2f} |")
        direct = {int(r["bytes"]): float(r["e_rel"]) for r in rs
                  if r["algorithm"] == "alltoall.direct_exchange"}
        detail.append(f"| {profile} | {P} | " + " | ".join(
            f"{100 * direct[s]:+.0f} %" if s in direct else "-" for s in sizes_all) + " |")
    return lines + [""] + detail


def selection_table(path):
    groups = defaultdict(dict)  # (label, P, bytes) -> variant -> row
    with open(path) as f:
        for r in csv.DictReader(f):
            if r["coll"] != "alltoall":
                continue
            groups[(r["label"], int(r["P"]), int(r["bytes"]))][r["variant"]] = r
    variants = sorted({v for g in groups.values() for v in g} - {"auto", "native"})
    lines = ["Median time of collsel's choice (through the shim) and, for every other variant, "
             "its median divided by collsel's (> 1: collsel faster). One interleaved run per "
             "row.", "",
             "| profile | P | block | collsel's choice | native | "
             + " | ".join(v.replace("alltoall.", "") for v in variants) + " |",
             "|---|---|---|---|---|" + "---|" * len(variants)]
    for (label, P, size), g in sorted(groups.items()):
        auto = g.get("auto")
        if auto is None:
            continue
        t = float(auto["median_s"])
        window = int(auto.get("window") or 0)
        choice = auto["algorithm"].replace("alltoall.", "") + (f" (k={window})" if window else "")
        cells = [f"{float(g[v]['median_s']) / t:.2f}" if v in g else "-" for v in variants]
        native = f"{float(g['native']['median_s']) / t:.2f}" if "native" in g else "-"
        lines.append(f"| {label} | {P} | {human_bytes(size)} | {choice} {human_time(t)} "
                     f"| {native} | " + " | ".join(cells) + " |")
    return lines


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True, help="markdown file to write")
    ap.add_argument("--models", nargs="+", default=[], help="model files (model-PROFILE.toml)")
    ap.add_argument("--validations", nargs="*", default=[],
                    help="validation CSVs (validation-PROFILE-PN.csv)")
    ap.add_argument("--selection", help="bench/selection CSV")
    a = ap.parse_args()
    text = ["### Fitted contention signature", ""]
    text += signature_table([pathlib.Path(p) for p in a.models])
    if a.validations:
        text += ["", "### Prediction error", ""]
        text += validation_tables([pathlib.Path(p) for p in a.validations])
    if a.selection and pathlib.Path(a.selection).exists():
        text += ["", "### collsel's choice against native and every schedule", ""]
        text += selection_table(a.selection)
    pathlib.Path(a.out).write_text("\n".join(text) + "\n")
    print("\n".join(text))


if __name__ == "__main__":
    main()
