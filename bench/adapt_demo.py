#!/usr/bin/env python3
"""The self-correction benchmark on a simulated cluster (docs/ADAPT.md, docs/BENCHMARKS.md
"Self-correction").

bench/adapt_demo.c (N calls of Bcast 64 KiB, Bcast 256 KiB, Scatter 256 KiB, Alltoall 64 KiB)
is run on one platform at P ranks under SimGrid's SMPI (tools/simcluster), once per variant:

  native-mpich, native-ompi   SMPI's MPICH and Open MPI selectors, without collsel
  model                       collsel, [adapt] mode off: the model alone
  explore                     collsel, [adapt] mode explore (the defaults of docs/CONFIG.md)
  learned                     collsel, explore, started from the explore run's learned table
  forced:i                    collsel with the i-th algorithm of each collective forced
  star                        collsel, [adapt] mode exhaustive: a STAR-MPI-style tuner, run
                              (every algorithm 10 calls from the 10th call on, then the best)

and with the model calibrated on the platform, then with the same model made wrong (one [plogp]
key multiplied by a factor, --wrong). The simulation is deterministic: one run per variant.
Per shape it reports the totals, the best fixed algorithm in hindsight, how many calls the
explore run took to settle on its final algorithm (and whether that is the best fixed one), and a
STAR-MPI-style tuner (every algorithm 10 calls, then the best) twice: measured (the `star`
variant: collsel's exhaustive mode with trial_calls = 10, first_checkpoint = 10, hysteresis = 0,
so the model's choice runs the first 10 calls, then every other algorithm 10, each agreed over
the ranks like explore's trials, then the fastest mean), and as before computed from the forced
runs' means: 10 x sum of the means + (N - 10 x A) x the best mean, an estimate without the
switches' and the trials' costs.

  python3 bench/adapt_demo.py --platform gige -n 16 --model docs/benchmarks/at-scale/models/gige.toml \\
      --wrong gap_s:3 --out docs/benchmarks/adapt

With --emucluster the same runs go to the emulated cluster instead (real MPICH over shaped TCP
links, tools/emucluster, brought up beforehand); the native is MPICH itself, and times are wall
clock, one run per variant, so only calls far above the scheduler's 4-16 ms ticks compare:

  tools/emucluster/emucluster up 8 --profile fast-ethernet
  python3 bench/adapt_demo.py --emucluster --platform emucluster-fast-ethernet -n 8 --calls 64 \\
      --model docs/benchmarks/calibration/fast-ethernet-default.toml --wrong gap_s:0.3333

There one run per variant is within the test bed's noise (the same algorithm's runs differ by up
to 9 %), so --repeat R runs only the variants the goals compare (the model alone, explore,
learned and star with both models, and the best fixed algorithms named by --best) R times,
interleaved,
and reports each ratio taken within a round: medians with min and max
(PLATFORM-PN-repeatR.csv and .md).
"""
import argparse
import csv
import json
import os
import pathlib
import re
import shutil
import statistics
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
SHAPES = [("bcast-65536", "bcast", 65536), ("bcast-262144", "bcast", 262144),
          ("scatter-262144", "scatter", 262144), ("alltoall-65536", "alltoall", 65536)]
ENV_FORCE = {"bcast": "COLLSEL_FORCE_BCAST", "scatter": "COLLSEL_FORCE_SCATTER",
             "alltoall": "COLLSEL_FORCE_ALLTOALL"}


def algorithms(collsel_tool):
    out = subprocess.run([collsel_tool, "list", "--names"], capture_output=True, text=True,
                         check=True).stdout
    names = {"bcast": [], "scatter": [], "alltoall": []}
    for name in out.split():
        names[name.split(".")[0]].append(name)
    return names


# The STAR-style tuner as collsel runs it (docs/ADAPT.md, "Exhaustive mode"): STAR-MPI tries every
# algorithm 10 calls and keeps the best; the model's choice runs the first 10 calls here.
STAR_ADAPT = ('[adapt]\nmode = "exhaustive"\ntrial_calls = 10\nfirst_checkpoint = 10\n'
              'hysteresis = 0.0\n')


def star_config(args, dest):
    """The config of the star variant: the user's --config with the exhaustive [adapt] table."""
    base = pathlib.Path(args.config).read_text() if args.config != "/dev/null" else ""
    if re.search(r"^\s*\[adapt\]", base, re.M):
        sys.exit(f"adapt_demo.py: {args.config} has an [adapt] table; the star variant needs its "
                 "own (drop the table from --config)")
    dest.write_text(base + "\n" + STAR_ADAPT)
    return dest


def wrong_model(model, key, factor, dest):
    """The model with [plogp] KEY (a number or a list of numbers; several keys separated by
    commas, e.g. gap_s,posted_gap_s for both gaps) multiplied by factor."""
    text = model.read_text()
    start = text.index("\n[plogp]\n") + 1
    end = text.find("\n[", start + 1)  # [plogp] may be the last section
    end = len(text) if end < 0 else end
    section = text[start:end]
    for one in key.split(","):
        pattern = re.compile(rf"^{re.escape(one)} = (.*?)(\s*#.*)?$", re.M)
        m = pattern.search(section)
        if not m:
            sys.exit(f"adapt_demo.py: no key {one} in [plogp] of {model}")
        scaled = re.sub(r"[0-9.]+(?:e[-+]?[0-9]+)?",
                        lambda n: repr(float(n.group(0)) * factor), m.group(1))
        section = section[:m.start(1)] + scaled + section[m.end(1):]
    text = text[:start] + section + text[end:]
    text = re.sub(r'^name = "(.*)"', rf'name = "\1 ({key} x {factor})"', text, count=1, flags=re.M)
    dest.write_text(text)
    return dest


def run(args, program, model, variant, env_extra, logdir):
    env = dict(os.environ)
    # Every call traced (no traces_per_site limit): settle() reads the algorithm of each call.
    env.update({"COLLSEL_CONFIG": args.config, "COLLSEL_LOG_DIR": str(logdir),
                "COLLSEL_LOG_TRACES_PER_SITE": "0"})
    env.update(env_extra)
    if args.emucluster:
        # The emulated cluster (already up: emucluster up N --profile ...): real MPICH over the
        # shaped links; "native-mpich" is MPICH itself, without the shim.
        cmd = [str(ROOT / "tools/emucluster/emucluster"), "mpiexec", "--hosts", str(args.n),
               "--ppn", str(args.ppn), "--timeout", str(args.timeout)]
        if not variant.startswith("native-"):
            cmd += ["--preload", args.shim]
            env["COLLSEL_MODEL"] = str(model)
    else:
        cmd = [str(ROOT / "tools/simcluster/simcluster"), "run", "--platform", args.platform,
               "-n", str(args.n), "--ppn", str(args.ppn), "--timeout", str(args.timeout)]
        if variant.startswith("native-"):
            cmd += ["--native", "--cfg", f"smpi/coll-selector:{variant[7:]}"]
        else:
            cmd += ["--model", str(model), "--shim", args.shim]
    cmd += ["--", str(program), str(args.calls)]
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
    totals = {m.group(1): float(m.group(2))
              for m in re.finditer(r"ADAPT shape=(\S+) calls=\d+ total_s=([0-9.e+-]+)", proc.stdout)}
    if len(totals) != len(SHAPES):
        sys.exit(f"adapt_demo.py: {variant} failed (exit {proc.returncode}):\n{proc.stdout[-2000:]}\n"
                 f"{proc.stderr[-2000:]}")
    return totals


def settle(logdir):
    """Per shape, rank 0's (algorithm, rung, segment) per call, from the newest run folder in
    logdir."""
    runs = sorted(pathlib.Path(logdir).iterdir())
    seqs = {}
    for line in (runs[-1] / "rank-00000.jsonl").read_text().splitlines():
        r = json.loads(line)
        if r.get("type") == "call" and r["comm_size"] > 1:
            seqs.setdefault(f"{r['coll']}-{r['bytes']}", []).append(
                (r["algorithm"], r["rung"], r.get("segment_bytes", 0)))
    return seqs, runs[-1]


def settled_after(seq):
    """The calls before the last switch: from there on every call ran the final algorithm at its
    final segment (a segment variant's trial is a switch too)."""
    if not seq:
        return None
    final = (seq[-1][0], seq[-1][2])
    return next(i for i in range(len(seq)) if all((a, s) == final for a, _, s in seq[i:]))


def trial_summary(seq):
    """A shape's calls (settle()) as (final algorithm, trial calls, calls before settling)."""
    return (seq[-1][0] if seq else "?", sum(1 for _, rung, _ in seq if rung == "explore"),
            settled_after(seq))


def forced_runs(args, program, model, names, work, log):
    """Per shape, the total of each algorithm forced (adapt off), run once with the calibrated
    model. The model also sets a segmented algorithm's segment (and the windowed All-to-All's
    window), so these are the algorithms as a correct model runs them: the best fixed algorithm
    is the same for both models, and a wrong model's own segment can be slower than it."""
    forced = {shape: {} for shape, _, _ in SHAPES}
    for i in range(max(len(v) for v in names.values())):
        env = {"COLLSEL_ADAPT": "off"}
        for coll, algs in names.items():
            env[ENV_FORCE[coll]] = algs[min(i, len(algs) - 1)]
        log(f"forced:{i}")
        t = run(args, program, model, f"forced:{i}", env, work / f"forced{i}")
        for shape, coll, _ in SHAPES:
            forced[shape][names[coll][min(i, len(names[coll]) - 1)]] = t[shape]
    return forced


def one_model(args, program, model, label, names, work, shared):
    log = lambda s: print(f"adapt_demo [{label}] {s}", flush=True)
    totals = {}
    # On the emulated cluster the native is MPICH itself (Open MPI's selector has no stand-in there).
    natives = ("native-mpich",) if args.emucluster else ("native-mpich", "native-ompi")
    for v in natives:
        # Without the shim the model plays no part: one run serves both models.
        if v not in shared:
            log(v)
            shared[v] = run(args, program, model, v, {}, work / v)
        totals[v] = shared[v]
    log("model")
    totals["model"] = run(args, program, model, "model", {"COLLSEL_ADAPT": "off"}, work / "model")
    log("explore")
    totals["explore"] = run(args, program, model, "explore", {"COLLSEL_ADAPT": "explore"},
                            work / "explore")
    seqs, explore_run = settle(work / "explore")
    if args.keep_logs:
        # The explore run's logs: each trial call's time and rung, the verdicts behind the totals.
        shutil.copytree(explore_run, pathlib.Path(args.keep_logs) / label.replace(" ", "") / "explore",
                        dirs_exist_ok=True)
    log("learned")
    totals["learned"] = run(args, program, model, "learned",
                            {"COLLSEL_ADAPT": "explore",
                             "COLLSEL_LEARNED": str(explore_run / "learned.toml")},
                            work / "learned")
    log("star")
    work.mkdir(parents=True, exist_ok=True)
    totals["star"] = run(args, program, model, "star",
                         {"COLLSEL_CONFIG": str(star_config(args, work / "star.toml"))},
                         work / "star")
    star_seqs, _ = settle(work / "star")
    learned_text = (explore_run / "learned.toml").read_text()
    if "forced" not in shared:
        shared["forced"] = forced_runs(args, program, model, names, work, log)
    forced = shared["forced"]
    rows = []
    for shape, coll, _ in SHAPES:
        f = forced[shape]
        best_alg = min(f, key=f.get)
        means = {a: t / args.calls for a, t in f.items()}
        star = 10 * sum(means.values()) + (args.calls - 10 * len(means)) * min(means.values())
        seq = seqs.get(shape, [])
        final, trial_calls, settled_at = trial_summary(seq)
        model_alg = seq[0][0] if seq else "?"
        rows.append({
            "model": label, "shape": shape, "calls": args.calls,
            "native_mpich_s": totals["native-mpich"][shape],
            "native_ompi_s": totals["native-ompi"][shape] if "native-ompi" in totals else "",
            "model_alone_s": totals["model"][shape], "model_choice": model_alg,
            "explore_s": totals["explore"][shape], "explore_final": final,
            "explore_settled_after_calls": settled_at,
            "explore_trial_calls": trial_calls,
            "learned_s": totals["learned"][shape],
            "best_fixed": best_alg, "best_fixed_s": f[best_alg],
            "star_s": totals["star"][shape],
            "star_final": trial_summary(star_seqs.get(shape, []))[0],
            "star_estimate_s": star,
        })
    return rows, learned_text


def repeated(args, program, models, out):
    """--repeat R: the variants that decide the goals (the model alone, explore, learned, star, the
    best fixed algorithms named by --best, and the MPI library's own collectives: MPICH on the
    emulated cluster, SMPI's MPICH selector in simulation), R rounds, interleaved so that a slow
    spell of the test bed falls on every variant alike. Per round, the ratios to the best fixed
    are taken within the round; the summary gives their medians with min and max. The
    STAR-style estimate needs every algorithm forced: the single run has it; the STAR-style run
    (star) is here, per model (the model sets a segmented algorithm's segment)."""
    best_env = {"COLLSEL_ADAPT": "off"}
    for name in args.best.split(","):
        best_env[ENV_FORCE[name.split(".")[0]]] = name
    raw = []
    work = pathlib.Path(tempfile.mkdtemp(prefix="adapt-repeat-"))
    for r in range(args.repeat):
        log = lambda s: print(f"adapt_demo round {r + 1}/{args.repeat}: {s}", flush=True)
        log("native-mpich")  # without the shim the model plays no part: one run per round
        t = run(args, program, models[0][1], "native-mpich", {}, work / f"r{r}-native")
        raw += [(r, "", "native", s, t[s], "", "", "") for s, _, _ in SHAPES]
        for label, model in models:
            tag = f"r{r}-{label.replace(' ', '')}"
            log(f"{label} model")
            t = run(args, program, model, "model", {"COLLSEL_ADAPT": "off"}, work / f"{tag}-m")
            raw += [(r, label, "model", s, t[s], "", "", "") for s, _, _ in SHAPES]
            log(f"{label} explore")
            t = run(args, program, model, "explore", {"COLLSEL_ADAPT": "explore"},
                    work / f"{tag}-x")
            seqs, explore_run = settle(work / f"{tag}-x")
            if args.keep_logs:
                # Each round's explore logs: what each trial call cost, and its agreements.
                shutil.copytree(explore_run, pathlib.Path(args.keep_logs) / tag / "explore",
                                dirs_exist_ok=True)
            raw += [(r, label, "explore", s, t[s], *trial_summary(seqs.get(s, [])))
                    for s, _, _ in SHAPES]
            log(f"{label} learned")
            t = run(args, program, model, "learned",
                    {"COLLSEL_ADAPT": "explore",
                     "COLLSEL_LEARNED": str(explore_run / "learned.toml")},
                    work / f"{tag}-l")
            raw += [(r, label, "learned", s, t[s], "", "", "") for s, _, _ in SHAPES]
            log(f"{label} star")
            t = run(args, program, model, "star",
                    {"COLLSEL_CONFIG": str(star_config(args, work / f"{tag}-star.toml"))},
                    work / f"{tag}-s")
            seqs, _ = settle(work / f"{tag}-s")
            raw += [(r, label, "star", s, t[s], *trial_summary(seqs.get(s, [])))
                    for s, _, _ in SHAPES]
        log("best fixed " + args.best)
        t = run(args, program, models[0][1], "best", best_env, work / f"r{r}-best")
        raw += [(r, "", "best", s, t[s], "", "", "") for s, _, _ in SHAPES]
    shutil.rmtree(work, ignore_errors=True)
    stem = out / f"{args.platform}-P{args.n}-repeat{args.repeat}"
    with open(stem.with_suffix(".csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(CSV_HEADER)
        w.writerows(raw)
    summarize(raw, [label for label, _ in models], args.best, stem)


CSV_HEADER = ["round", "model", "variant", "shape", "total_s", "explore_final",
              "explore_trial_calls", "explore_settled_after_calls"]


def summarize(raw, labels, best_names, stem):
    """The --repeat summary (STEM.md) from the rounds' rows. The best fixed algorithm of a round
    is the fastest of its fixed runs: the --best algorithms forced and each model alone ([adapt]
    off, one algorithm at the model's parameters on every call), so a --best that a model's own
    choice beats is not taken for the best."""
    fixed = {}
    for r, _, v, s, t, *_ in raw:
        if v in ("best", "model"):
            fixed[(r, s)] = min(t, fixed.get((r, s), float("inf")))
    native = {(r, s): t for r, _, v, s, t, *_ in raw if v == "native"}
    med = statistics.median
    spread = lambda xs: f"{med(xs):+.1f} % [{min(xs):+.1f}, {max(xs):+.1f}]" if xs else "-"
    rounds = len({row[0] for row in raw})
    lines = [f"Medians over {rounds} interleaved rounds [min, max]; ratios to the best fixed "
             f"algorithm of the same round: the fastest of {best_names} forced and of each "
             "model alone.", "",
             "| model | shape | best fixed | MPICH native vs best | model alone vs best | "
             "explore vs best | learned vs best | STAR-style (run) vs best | "
             "explore vs model alone | explore trials, settled after (calls) |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for label in labels:
        for s, _, _ in SHAPES:
            by = lambda v: {r: t for r, l, vv, ss, t, *_ in raw
                            if l == label and vv == v and ss == s}
            m, x, ln, st = by("model"), by("explore"), by("learned"), by("star")
            rel = lambda d, ref: [100 * (d[r] / ref[r] - 1) for r in sorted(d)]
            bref = {r: fixed[(r, s)] for r in x}
            nat = {r: native[(r, s)] for r in x}
            mine = [row for row in raw if row[1] == label and row[2] == "explore" and row[3] == s]
            trials = "/".join(str(row[6]) for row in mine)
            settled = "/".join(str(row[7]) for row in mine)
            finals = sorted({row[5] for row in mine})
            lines.append(f"| {label} | {s} | {med(list(bref.values())):.3f} s | "
                         f"{spread(rel(nat, bref))} | "
                         f"{spread(rel(m, bref))} | {spread(rel(x, bref))} | "
                         f"{spread(rel(ln, bref))} | {spread(rel(st, bref))} | "
                         f"{spread(rel(x, m))} | {trials}, {settled} "
                         f"({', '.join(finals)}) |")
    stem.with_suffix(".md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


def summarize_csv(path, best_names):
    """--summarize: the summary of an earlier --repeat run's CSV, written beside it."""
    raw = []
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            raw.append((int(row["round"]), row["model"], row["variant"], row["shape"],
                        float(row["total_s"]), row["explore_final"],
                        row["explore_trial_calls"], row["explore_settled_after_calls"]))
    labels = list(dict.fromkeys(row[1] for row in raw if row[1]))
    summarize(raw, labels, best_names, pathlib.Path(path).with_suffix(""))


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--platform", default="gige")
    p.add_argument("-n", type=int, default=16)
    p.add_argument("--ppn", type=int, default=1)
    p.add_argument("--calls", type=int, default=200)
    p.add_argument("--model", help="the model calibrated on the platform (required unless "
                                    "--summarize)")
    p.add_argument("--wrong", default="gap_s:3",
                   help="KEY[,KEY...]:FACTOR of [plogp] for the wrong model")
    p.add_argument("--emucluster", action="store_true",
                   help="run on the emulated cluster (tools/emucluster, already up with at least "
                        "-n hosts; --platform then only names the output files) instead of SMPI")
    p.add_argument("--shim", help="the shim (default: the SMPI build's, or build/pmpi/"
                                  "libcollsel.so with --emucluster)")
    p.add_argument("--collsel", default=str(ROOT / "build/tools/cli/collsel"))
    p.add_argument("--config", default="/dev/null",
                   help="the collsel config file of every collsel run (default: none, the "
                        "built-in defaults); the variants' COLLSEL_ADAPT still overrides its mode")
    # 3600: since the preposted chain joined the Bcasts (forced:12), its 400 calls in segments of
    # a few hundred bytes ran past 900 s of wall time on simulated gige, P = 16, with two other
    # simulations on the 2 cores (twenty-ninth session).
    p.add_argument("--timeout", type=int, default=3600,
                   help="seconds of wall time one simulation or emulated run may take "
                        "(default 3600)")
    p.add_argument("--out", default=str(ROOT / "docs/benchmarks/adapt"))
    p.add_argument("--keep-logs", metavar="DIR",
                   help="copy each model's explore run's logs (collsel report reads them) to DIR; "
                        "with --repeat, every round's, to DIR/rROUND-MODEL/explore")
    p.add_argument("--repeat", type=int, metavar="R",
                   help="instead of one run of every variant: R interleaved rounds of the model "
                        "alone, explore and learned (both models) and the --best algorithms "
                        "forced, with medians and spread (for the emulated cluster's noise)")
    p.add_argument("--best", default="bcast.chain_segmented,scatter.flat,alltoall.all_at_once",
                   help="with --repeat: the best fixed algorithm of each collective, as a "
                        "full run found it (default: the emulated fast-ethernet runs')")
    p.add_argument("--summarize", metavar="CSV",
                   help="only write the summary (.md beside it) of an earlier --repeat run's CSV")
    args = p.parse_args()
    if args.summarize:
        summarize_csv(args.summarize, args.best)
        return
    if not args.model:
        p.error("--model is required")
    if args.shim is None:
        args.shim = str(ROOT / ("build/pmpi/libcollsel.so" if args.emucluster
                                else "build/smpi/pmpi/libcollsel-smpi.so"))
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    names = algorithms(args.collsel)
    with tempfile.TemporaryDirectory(prefix="adapt-demo-") as tmp:
        tmp = pathlib.Path(tmp)
        program = tmp / "adapt_demo"
        subprocess.run(["mpicc" if args.emucluster else "smpicc", "-O2", "-o", str(program),
                        str(ROOT / "bench/adapt_demo.c")], check=True, cwd=tmp)
        key, factor = args.wrong.split(":")
        wrong = wrong_model(pathlib.Path(args.model), key, float(factor), out / f"{args.platform}-wrong.toml")
        models = (("calibrated", pathlib.Path(args.model)), (f"{key} x {factor}", wrong))
        if args.repeat:
            repeated(args, program, models, out)
            return
        rows = []
        shared = {}  # the runs the model plays no part in: natives and forced algorithms
        for label, model in models:
            r, learned = one_model(args, program, model, label, names,
                                   tmp / label.replace(" ", ""), shared)
            rows += r
            (out / f"{args.platform}-P{args.n}-{'calibrated' if label == 'calibrated' else 'wrong'}-learned.toml").write_text(learned)
    with open(out / f"{args.platform}-P{args.n}.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    for r in rows:
        print(json.dumps(r))


if __name__ == "__main__":
    main()
