#!/usr/bin/env python3
"""Placement-aware choice against the closed-form choice, from one bench/selection run.

For every (collective, P, size) of the selection CSV: the closed-form choice (`collsel explain`
without a placement), the simulated choice (`--ranks-per-node K --placement filled`), what the
shim ran ("auto"), and the measured median of each choice taken from the same run's forced
variants, with the best forced algorithm and the native collective for reference.
"""
import argparse
import csv
import json
import subprocess
import sys
from collections import defaultdict


def explain(cli, model, coll, P, size, ppn):
    cmd = [cli, "explain", "--model", model, "--coll", coll, "-P", str(P), "-m", str(size),
           "--format", "json"]
    if ppn:
        cmd += ["--ranks-per-node", str(ppn), "--placement", "filled"]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    d = json.loads(out)
    return d["winner"], d["predicted_s"]


def fmt_s(x):
    if x is None:
        return "n/a"
    return f"{x * 1e3:.3g} ms" if x < 1 else f"{x:.3g} s"


def fmt_spread(median, p25, p75):
    """'12.3 ms [11.9-13.0]': the median and the quartiles of the repetitions."""
    if median is None:
        return "n/a"
    if p25 is None or p75 is None:
        return fmt_s(median)
    scale, unit = (1e3, "ms") if median < 1 else (1.0, "s")
    return f"{median * scale:.3g} {unit} [{p25 * scale:.3g}-{p75 * scale:.3g}]"


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("selection_csv")
    ap.add_argument("--model", required=True)
    ap.add_argument("--collsel", required=True, help="the collsel command")
    ap.add_argument("--ppn", type=int, required=True)
    ap.add_argument("--csv-out", required=True)
    ap.add_argument("--markdown", required=True)
    a = ap.parse_args()

    groups = defaultdict(dict)
    for row in csv.DictReader(open(a.selection_csv)):
        key = (row["coll"], int(row["P"]), int(row["bytes"]))
        groups[key][row["variant"]] = row
    rows = []
    for (coll, P, size), variants in sorted(groups.items()):
        forced = {v: float(r["median_s"]) for v, r in variants.items()
                  if v not in ("native", "auto")}
        spread = {v: (float(r["p25_s"]), float(r["p75_s"])) for v, r in variants.items()}
        closed, closed_pred = explain(a.collsel, a.model, coll, P, size, 0)
        sim, sim_pred = explain(a.collsel, a.model, coll, P, size, a.ppn)
        best = min(forced, key=forced.get)
        auto = variants.get("auto")
        rows.append({
            "coll": coll, "P": P, "bytes": size,
            "closed_form_choice": closed, "closed_form_predicted_s": closed_pred,
            "closed_form_measured_s": forced.get(closed),
            "closed_form_p25_s": spread.get(closed, (None, None))[0],
            "closed_form_p75_s": spread.get(closed, (None, None))[1],
            "simulated_choice": sim, "simulated_predicted_s": sim_pred,
            "simulated_measured_s": forced.get(sim),
            "simulated_p25_s": spread.get(sim, (None, None))[0],
            "simulated_p75_s": spread.get(sim, (None, None))[1],
            "auto_ran": auto["algorithm"] if auto else "",
            "auto_measured_s": float(auto["median_s"]) if auto else None,
            "best_forced": best, "best_forced_s": forced[best],
            "native_s": float(variants["native"]["median_s"]) if "native" in variants else None,
        })
    with open(a.csv_out, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        w.writeheader()
        w.writerows(rows)

    changed = [r for r in rows if r["closed_form_choice"] != r["simulated_choice"]]
    better = [r for r in changed if r["simulated_measured_s"] and r["closed_form_measured_s"]
              and r["simulated_measured_s"] < r["closed_form_measured_s"]]
    lines = [
        "| coll | P | size | closed-form choice (measured) | simulated choice (measured) | "
        "closed / simulated | shim ran (measured) | best forced (measured) | native |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        ratio = (r["closed_form_measured_s"] / r["simulated_measured_s"]
                 if r["closed_form_measured_s"] and r["simulated_measured_s"] else None)
        lines.append(
            f"| {r['coll']} | {r['P']} | {r['bytes']} | {r['closed_form_choice']} "
            f"({fmt_spread(r['closed_form_measured_s'], r['closed_form_p25_s'], r['closed_form_p75_s'])}) | "
            f"{r['simulated_choice']} "
            f"({fmt_spread(r['simulated_measured_s'], r['simulated_p25_s'], r['simulated_p75_s'])}) | "
            f"{'%.2fx' % ratio if ratio else 'n/a'} | {r['auto_ran']} ({fmt_s(r['auto_measured_s'])}) | "
            f"{r['best_forced']} ({fmt_s(r['best_forced_s'])}) | {fmt_s(r['native_s'])} |")
    lines.append("")
    lines.append("Measured: median [25th-75th percentile] of the repetitions of the forced "
                 "algorithm in the same run.")
    lines.append(f"The choice changed in {len(changed)} of {len(rows)} rows; the simulated "
                 f"choice measured faster than the closed-form one in {len(better)} of them.")
    open(a.markdown, "w").write("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    sys.exit(main())
