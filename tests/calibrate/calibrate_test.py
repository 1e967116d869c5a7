#!/usr/bin/env python3
"""collsel-calibrate end to end (oversubscribed, shared memory: correctness, not timing).

Cases:
  quick N     a --quick calibration at N ranks writes a model file that loads (collsel explain
              reads it without a word), with positive, sensibly ordered parameters and the
              calibration facts (ranks, ranks per node, duration, spreads), and an [alltoall]
              section fitted at n' = N that `collsel explain --coll alltoall` uses.
  interrupt   SIGINT to mpiexec mid-run leaves neither the model file nor a temporary file.
  validate    --validate writes the report, CSV and data files, covering every algorithm.
  fake_nodes N  with COLLSEL_FAKE_NODES=2 the contention graphs run and [contention] loads.
Every calibration also checks [logfp] (the 1:P-P:1 benchmark).
"""
import argparse
import os
import signal
import subprocess
import sys
import tempfile
import time
import tomllib


def fail(msg):
    print(f"FAIL: {msg}")
    sys.exit(1)


def run(cmd, **kw):
    print("+", " ".join(cmd), flush=True)
    return subprocess.run(cmd, capture_output=True, text=True, timeout=240, **kw)


def case_quick(a, work):
    out = os.path.join(work, "m.toml")
    # With 3 ranks or more, one halving of the step search (off in --quick): the sizes it adds
    # must reach the third rank, which measures the shares at every size of the table.
    steps = ["--step-depth", "1"] if a.ranks >= 3 else []
    p = run([a.mpiexec, "-n", str(a.ranks), a.calibrate, "--quick", "--budget", "8",
             "--alltoall-budget", "4", "--max-bytes", "262144", "--name", "test", "-o", out,
             *steps])
    if p.returncode != 0:
        fail(f"calibrate exited {p.returncode}: {p.stderr}")
    if "s left" not in p.stderr:
        fail(f"no progress on stderr: {p.stderr!r}")
    if bool(steps) != ("step search:" in p.stderr):
        fail(f"the step search ran {'not ' if steps else ''}as asked: {p.stderr!r}")
    check = run([a.collsel, "explain", "--model", out, "--coll", "bcast", "-P", "8", "-m", "64KiB"])
    if check.returncode != 0 or check.stderr.strip():
        fail(f"collsel explain did not read the model cleanly: {check.stderr}")
    with open(out, "rb") as f:
        doc = tomllib.load(f)
    pl, pv = doc["plogp"], doc["provenance"]
    sizes, gap = pl["sizes_bytes"], pl["gap_s"]
    if sizes[0] != 0 or sizes[-1] != 262144 or sizes != sorted(set(sizes)):
        fail(f"sizes {sizes}")
    if pl["latency_s"] < 0 or any(g <= 0 for g in gap):
        fail(f"L {pl['latency_s']} or a g <= 0: {gap}")
    if any(x <= 0 for x in pl["send_overhead_s"] + pl["recv_overhead_s"]):
        fail("an overhead <= 0")
    # Sensibly ordered: moving 256 KiB costs more than moving 1 byte, by a wide margin.
    if not gap[-1] > 4 * gap[1]:
        fail(f"g(256 KiB) = {gap[-1]} is not well above g(1) = {gap[1]}")
    if len(pl["gap_spread"]) != len(sizes) or any(s < 0 for s in pl["gap_spread"]):
        fail("gap_spread missing or negative")
    # The posted gap (docs/MODELS.md, "Two gaps"): one per size, and 256 KiB takes time.
    posted = pl.get("posted_gap_s", [])
    if len(posted) != len(sizes) or any(g < 0 for g in posted) or not posted[-1] > 0:
        fail(f"posted_gap_s missing, of the wrong length or not positive at 256 KiB: {posted}")
    # The pipeline gap and, with 3 ranks or more, the two shares (docs/MODELS.md, "Two receives
    # ahead", "Shared fan-out"): one per size, gaps >= 0, shares fractions.
    pipeline = pl.get("pipeline_gap_s", [])
    if len(pipeline) != len(sizes) or any(g < 0 for g in pipeline) or not pipeline[-1] > 0:
        fail(f"pipeline_gap_s missing, of the wrong length or not positive at 256 KiB: {pipeline}")
    for share in ("fanout_share", "pair_share"):
        values = pl.get(share, [])
        if a.ranks >= 3 and (len(values) != len(sizes) or any(not 0 <= v <= 1 for v in values)):
            fail(f"{share} missing, of the wrong length or not fractions: {values}")
    if pv["ranks"] != a.ranks or pv["ranks_per_node"] != a.ranks or pv["duration_s"] <= 0:
        fail(f"provenance {pv}")
    if "collsel-calibrate --quick" not in pv["command"] or not pv["hosts"]:
        fail(f"provenance command/hosts {pv}")
    # The All-to-All signature, fitted at n' = every rank over block sizes 64 B .. 256 KiB.
    a2a = doc.get("alltoall")
    if a2a is None:
        fail(f"no [alltoall] section; stderr: {p.stderr}")
    if a2a["sample_ranks"] != a.ranks or a2a["fit_points"] < 4 or a2a["gamma"] <= 0:
        fail(f"[alltoall] {a2a}")
    if not (a2a["alpha_s"] > 0 and a2a["beta_s_per_byte"] > 0 and a2a["copy_s_per_byte"] > 0):
        fail(f"[alltoall] Hockney or copy cost not positive: {a2a}")
    if not (0 <= a2a["rho_single"] <= 1 and 0 <= a2a["rho_flood"] <= 1):
        fail(f"[alltoall] rho outside [0, 1]: {a2a}")
    if "All-to-All signature at n'" not in p.stderr:
        fail("the signature was not reported on stderr")
    a2a_check = run([a.collsel, "explain", "--model", out, "--coll", "alltoall", "-P", "16",
                     "-m", "4KiB"])
    if a2a_check.returncode != 0 or "alltoall." not in a2a_check.stdout:
        fail(f"collsel explain --coll alltoall failed: {a2a_check.stderr}")
    check_logfp(doc, a.ranks, p.stderr)
    # One node: the contention graphs (between nodes) are skipped, saying why.
    if "contention" in doc or "no [contention] section: all" not in p.stderr:
        fail(f"[contention] on one node, or no reason given: {p.stderr}")
    print(f"quick calibration at {a.ranks} ranks: {len(sizes)} sizes in {pv['duration_s']:.1f} s, "
          f"gamma {a2a['gamma']:.3g}, LogfP f = {doc['logfp']['f']}")


def check_logfp(doc, ranks, stderr):
    """[logfp] from the 1:P-P:1 benchmark (seed 004) at P = 1..ranks-1, 1-byte messages."""
    lf = doc.get("logfp")
    if lf is None:
        fail(f"no [logfp] section; stderr: {stderr}")
    if lf["max_bytes"] != 1 or not 1 <= lf["f"] <= max(1, ranks - 1):
        fail(f"[logfp] max_bytes or f out of place: {lf}")
    if min(lf["latency_s"], lf["o_min_s"], lf["o_max_s"], lf["gap_s"]) < 0 or \
            lf["o_min_s"] + lf["o_max_s"] <= 0:
        fail(f"[logfp] a negative time or no overhead: {lf}")
    if "LogfP 1:P-P:1 benchmark" not in stderr:
        fail("the LogfP phase did not report on stderr")


def case_fake_nodes(a, work):
    """COLLSEL_FAKE_NODES=2 splits the ranks into 2 pseudo-nodes: the contention graphs that fit
    run (times of shared memory, so only the file's shape is checked) and the section loads."""
    out = os.path.join(work, "m.toml")
    env = dict(os.environ, COLLSEL_FAKE_NODES="2")
    p = run([a.mpiexec, "-n", str(a.ranks), a.calibrate, "--quick", "--budget", "4",
             "--no-alltoall", "--max-bytes", "65536", "--contention-bytes", "64KiB",
             "--contention-repeats", "3", "-o", out], env=env)
    if p.returncode != 0:
        fail(f"calibrate exited {p.returncode}: {p.stderr}")
    check = run([a.collsel, "explain", "--model", out, "--coll", "bcast", "-P", "8", "-m", "64KiB"])
    if check.returncode != 0 or check.stderr.strip():
        fail(f"collsel explain did not read the model cleanly: {check.stderr}")
    with open(out, "rb") as f:
        doc = tomllib.load(f)
    c = doc.get("contention")
    if c is None:
        fail(f"no [contention] section; stderr: {p.stderr}")
    if c["rule"] not in ("fair", "infiniband", "gige", "myrinet") or c["use"] != "auto":
        fail(f"[contention] rule or use: {c}")
    if not (c["alpha_s_per_byte"] > 0 and c["intra_alpha_s_per_byte"] >= 0 and
            c["reference_bytes"] == 65536):
        fail(f"[contention] alpha, intra-node alpha or size: {c}")
    # Two pseudo-nodes of 2 ranks hold the pair, 2 parallel communications and the two-way pair;
    # a graph whose noisy times the reverse solving cannot use is left out.
    for g in c.get("graph", []):
        if g["name"] not in ("parallel-2", "two-way") or len(g["penalties"]) != 2:
            fail(f"unexpected measured graph {g}")
    if "contention graph  3/3 two-way" not in p.stderr or "COLLSEL_FAKE_NODES=2" not in \
            doc["provenance"]["notes"]:
        fail(f"the graphs or the test knob were not reported: {p.stderr}")
    check_logfp(doc, a.ranks, p.stderr)
    print(f"pseudo-nodes: rule {c['rule']}, {len(c.get('graph', []))} graphs kept")


def case_interrupt(a, work):
    out = os.path.join(work, "m.toml")
    # Up to 256 MiB: long enough to be caught mid-run (shared memory measures 4 MiB in a second).
    proc = subprocess.Popen([a.mpiexec, "-n", "2", a.calibrate, "--budget", "120",
                             "--max-bytes", str(256 << 20), "-o", out],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    # Interrupt once the measurement is under way (its first progress line).
    first = proc.stderr.readline()
    if "pLogP" not in first:
        fail(f"no progress line before the interrupt: {first!r}")
    if proc.poll() is not None:
        fail(f"calibrate ended before the interrupt: {proc.communicate()}")
    os.killpg(proc.pid, signal.SIGINT)
    try:
        proc.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
    left = os.listdir(work)
    if left:
        fail(f"an interrupted calibration left {left}")
    print("interrupted calibration left nothing behind")


def case_validate(a, work):
    model = os.path.join(work, "m.toml")
    p = run([a.mpiexec, "-n", "2", a.calibrate, "--quick", "--budget", "5", "--max-bytes",
             "65536", "-o", model])
    if p.returncode != 0:
        fail(f"calibrate exited {p.returncode}: {p.stderr}")
    prefix = os.path.join(work, "v")
    p = run([a.mpiexec, "-n", str(a.ranks), a.calibrate, "--validate", model, "--quick",
             "--validate-prefix", prefix, "--validate-sizes", "1,3000"])
    if p.returncode != 0:
        fail(f"validate exited {p.returncode}: {p.stderr}")
    for ext in ("md", "csv", "dat"):
        if not os.path.getsize(f"{prefix}.{ext}"):
            fail(f"{prefix}.{ext} empty")
    names = run([a.collsel, "list", "--names"]).stdout.split()
    csv_text = open(f"{prefix}.csv").read()
    missing = [n for n in names if f",{n}," not in csv_text]
    if missing:
        fail(f"validation CSV lacks {missing}")
    md = open(f"{prefix}.md").read()
    if "median |E_rel|" not in md or "within 5 %" not in md:
        fail("report lacks the summary lines")
    if "WRONG" in md:
        fail("an algorithm delivered wrong results")
    print(f"validation at {a.ranks} ranks covered {len(names)} algorithms")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("case", choices=["quick", "interrupt", "validate", "fake_nodes"])
    ap.add_argument("--ranks", type=int, default=2)
    ap.add_argument("--mpiexec", required=True)
    ap.add_argument("--calibrate", required=True)
    ap.add_argument("--collsel", required=True)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="collsel-calibrate-test.") as work:
        {"quick": case_quick, "interrupt": case_interrupt, "validate": case_validate,
         "fake_nodes": case_fake_nodes}[a.case](a, work)


if __name__ == "__main__":
    main()
