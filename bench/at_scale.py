#!/usr/bin/env python3
"""The at-scale selection benchmark on simulated clusters (SimGrid SMPI, docs/SIMULATION.md).

  python3 bench/at_scale.py calibrate [--out DIR] [--platforms ...]
  python3 bench/at_scale.py run       [--out DIR] [--platforms ...] [--ppn 1,8] [--ranks ...]
                                      [--colls ...] [--jobs 2] [--plan default|spot1024|...]
                                      [--selectors-only | --own-only] [--dry-run]
  python3 bench/at_scale.py rechoose  [--out DIR] [--platforms ...] [--ppn 8] [--ranks ...]
                                      [--colls ...] [--jobs 2] [--changed NAME,...] [--dry-run]
  python3 bench/at_scale.py extend    --fixed NAME[,NAME] [--platforms ...] [--ranks ...] [--jobs 2]
  python3 bench/at_scale_report.py    [--out DIR]   (the tables and plots)

calibrate: collsel-calibrate (the SMPI build) on each platform, 16 ranks at 2 per node (8 nodes:
the pLogP pair across nodes, the intra-node pair, the contention graphs, LogfP and the All-to-All
signature at n' = 16); OUT/models/PLATFORM.toml, and OUT/calibration.csv with the simulated and
the wall seconds each took.

run: for each platform, ranks per node, P and collective, simulations (simcluster run) of the
SMPI build of bench/selection over the sizes: one with the shim loaded and the platform's
calibrated model (SMPI's default collective "native", every collsel algorithm forced, collsel's
choice through the shim "auto", the embedded default model's choice "auto:default"), and one per
SMPI native routine (its MPICH and Open MPI selectors and each of its own algorithms), each alone
in its simulation: several of SMPI's algorithms abort or deadlock at some sizes, and alone they
lose only their own points. One repetition: the simulation is deterministic (the warm-up round
before it absorbs the first call's set-up). Raw CSV per job in OUT/raw/; a finished job is never
re-run, so an interrupted run resumes where it stopped (--dry-run lists the jobs still to run).
Jobs run --jobs at a time, cheapest first; --selectors-only runs collsel's job and the two
selectors only, --own-only then SMPI's own algorithms.

extend: a new collsel algorithm measured at every point of the plan that has a collsel run, in
its own simulation per job (selection --fixed NAME --no-native --no-auto), in
OUT/raw/NAME-fixed-ALGORITHM.csv: its rows join the point's forced algorithms. Run rechoose
after it, so collsel's choice, which may now be the new algorithm, is measured again.

rechoose: after a change to decide() or to the models, the points whose collsel choice ("auto",
the calibrated model through the shim) the current build makes differently. For every point of
OUT/raw with an "auto" row, `collsel explain` (the primary build, the platform's model, the
job's ranks per node, filled placement as the shim finds it under simcluster) gives the choice
now; where its algorithm, segment or window differs from the latest measured one (a choices row
when an earlier rechoose made one, else the first run's), the point's "auto" is measured again:
one simulation per job, with the shim and only collsel's choice (`selection --no-fixed
--no-native`), in OUT/raw/NAME-choices.csv, after the point's older choices rows are dropped, so
that a point has at most one. at_scale_report.py takes a point's "auto" from that row when there
is one; the forced algorithms and the libraries' selectors, which no collsel change moves, stay
as measured. Points whose choice is unchanged keep their time: the simulation is deterministic.
After a change to an algorithm's code, `extend --fixed NAME` measures it again at every point and
`rechoose --changed NAME` measures again every choice of it, changed or not.

--skipped (rechoose: collsel's choice; extend: the --fixed algorithms): only the rows that the
wall guard skipped (`skipped` = 1: a call of that variant took longer than --max-variant-wall
seconds of wall time at a smaller size of its job), measured again with a larger
--max-variant-wall, in one simulation per file that holds them; each new row replaces the skipped
one in place, in the file that held it, so every reader sees it where it saw the old row, and the
job's log stays as OUT/raw/NAME-again.log.
"""
import argparse
import concurrent.futures
import csv
import glob
import json
import os
import subprocess
import sys
import time

import at_scale_report

HERE = os.path.dirname(os.path.realpath(__file__))
ROOT = os.path.dirname(HERE)
SIMCLUSTER = os.path.join(ROOT, "tools", "simcluster", "simcluster")
PLATFORMS = ["fast-ethernet", "gige", "eth25-fattree", "ib-fattree"]
KIB, MIB = 1 << 10, 1 << 20
# Bcast and Scatter (per rank): 1 B to 16 MiB in powers of 4; Alltoall: 16 B to 1 MiB blocks.
SIZES = {
    "bcast": [4 ** i for i in range(13)],
    "scatter": [4 ** i for i in range(13)],
    "alltoall": [16 * 4 ** i for i in range(9)],
}
# Buffers from this size on are SMPI shared memory (flavour/flavour.hpp): the simulated times stay
# exact, the bytes are not checked. Below it every variant's result is checked.
SHARED_BYTES = 4 * MIB
# A variant whose simulation of one call took longer is skipped at the job's larger sizes: SMPI's
# flow model costs about the square of the messages in flight, and an All-to-All posting every
# message at once took 90 s of wall time for one 256-byte call at P = 48 on gige.
MAX_VARIANT_WALL_S = 30  # the default of --max-variant-wall


# At 1024 simulated ranks one call of one variant costs minutes of wall time (the first attempt
# with every variant did not finish its first point in 30 minutes), so a simulation forces only
# the algorithms that won somewhere at P = 256 (docs/BENCHMARKS.md, "At scale") besides collsel's
# choices, and only the MPICH and Open MPI selectors run as natives.
FIXED_AT_1024 = {
    "bcast": ["bcast.binomial", "bcast.binomial_segmented", "bcast.chain_segmented"],
    "scatter": ["scatter.flat", "scatter.binomial"],
    "alltoall": [
        "alltoall.pairwise", "alltoall.bruck", "alltoall.windowed", "alltoall.mesh2d"
    ],
}


def skipped_natives(coll, P):
    """SMPI natives left out of a job, with the reason in docs/SIMULATION.md."""
    # Left out everywhere, for their cost to simulate (each would take a large part of the whole
    # benchmark's time), none of them used by a library's selector:
    # - bcast arrival_*: they poll with MPI_Iprobe and every poll is a simulated event: more
    #   than 2 minutes of wall time for the 16 MiB call at P = 16 on fast-ethernet;
    # - bcast NTSB, NTSL_Isend, flattree_pipeline: they post every segment at once, and SMPI's
    #   flow model then shares links among thousands of flows: NTSB and flattree_pipeline did
    #   not finish the 4 MiB call at P = 16 on fast-ethernet in 300 s.
    # - the impi and mvapich2 selectors: the baselines are MPICH's and Open MPI's.
    skip = ["smpi:arrival_pattern_aware", "smpi:arrival_pattern_aware_wait",
            "smpi:arrival_scatter", "smpi:NTSB", "smpi:NTSL_Isend", "smpi:flattree_pipeline",
            "smpi:impi", "smpi:mvapich2"]
    if coll == "alltoall" and P & (P - 1):
        # alltoall: the pair family throws std::invalid_argument below powers of two, which
        # ends the simulation.
        skip += ["smpi:pair", "smpi:pair_light_barrier", "smpi:pair_mpi_barrier",
                 "smpi:pair_one_barrier"]
    if coll == "alltoall" and P > 64:
        # recursive doubling and the 2D/3D meshes: 5-25x the best at P <= 64 and the costliest
        # to simulate (rdb: 25 s of wall time for one 64 KiB call at P = 48).
        skip += ["smpi:rdb", "smpi:2dmesh", "smpi:3dmesh"]
    return skip


def default_alltoall_aborts(P, size):
    """Whether SMPI's default All-to-All (its Open MPI selector, alltoall__ompi: Open MPI 4.1's
    decision table) picks its pair algorithm for P ranks and `size`-byte blocks when P is no
    power of two, where that algorithm throws std::invalid_argument and ends the simulation
    (seen at P = 100 from 256 KiB on)."""
    if not P & (P - 1):
        return False
    # (P below, the block sizes [start, end) that get the pair algorithm there; end None: no end)
    pair = [(8, 524288, 1048576), (64, 0, 0), (128, 262144, None), (256, 262144, None),
            (512, 32768, None), (1024, 262144, None)]
    for below, start, end in pair:
        if P < below:
            return start <= size and (end is None or size < end)
    return False


def native_in_collsel_job(coll, P, sizes):
    """Whether collsel's job also runs SMPI's default collective (its `native` row)."""
    if coll != "alltoall":
        return True
    # SMPI's default All-to-All is its Open MPI selector, which has its own job. Below 256 ranks
    # the row is cheap and kept. Where that selector aborts (default_alltoall_aborts) the row
    # would end the whole simulation on its first call. At 256 ranks one 4 KiB call of it had
    # not ended in 30 minutes (eth25-fattree, 1 per node; SimGrid's max-min solver took 96 % of
    # a like run's wall time under perf), before any of collsel's variants had run.
    return P < 256 and not any(default_alltoall_aborts(P, m) for m in sizes)


def natives_of(coll, P, natives):
    """The SMPI natives simulated for a job: at 1024 ranks the two selectors only."""
    skip = skipped_natives(coll, P)
    chosen = [n for n in natives[coll] if n not in skip]
    if P >= 1024:
        chosen = [n for n in chosen if n in ("smpi:mpich", "smpi:ompi")]
    return chosen


def plan(name):
    """(P, ppn, coll, sizes) jobs of a plan."""
    jobs = []
    if name == "default":
        for P in (16, 48, 64, 100, 256):
            for ppn in (1, 8):
                for coll in ("bcast", "scatter"):
                    jobs.append((P, ppn, coll, SIZES[coll]))
                if P <= 100:
                    jobs.append((P, ppn, "alltoall", SIZES["alltoall"]))
                else:
                    jobs.append((P, ppn, "alltoall", [64, 4 * KIB, 64 * KIB]))
    elif name == "spot1024":
        for ppn in (1, 8):
            for coll in ("bcast", "scatter"):
                jobs.append((1024, ppn, coll, [16, 16 * KIB, MIB]))
    elif name == "alltoall256":
        # The All-to-All at 256 ranks at every size of the default plan's smaller P: the default
        # plan has 3 spot sizes there, for their cost to simulate on the Ethernets (an exchange
        # with every block in flight at once did not end its 64 B call in 30 minutes on
        # fast-ethernet); on the fat trees a 64 B call of every variant takes seconds.
        for ppn in (1, 8):
            jobs.append((256, ppn, "alltoall", SIZES["alltoall"]))
    elif name == "quick":
        for coll in ("bcast", "scatter", "alltoall"):
            jobs.append((16, 1, coll, [1, 1024, 65536, MIB]))
    else:
        sys.exit(f"at_scale.py: unknown plan {name}")
    return jobs


def log(message):
    print(f"at_scale [{time.strftime('%H:%M:%S')}] {message}", flush=True)


def build_dir(args):
    return os.path.abspath(args.build or os.path.join(ROOT, "build"))


def cfg_options(args):
    """simcluster's --cfg options for every simulation of this run (calibration included)."""
    return [x for c in args.cfg for x in ("--cfg", c)]


def calibrate(args):
    smpi = os.path.join(build_dir(args), "smpi")
    models = os.path.join(args.out, "models")
    os.makedirs(models, exist_ok=True)
    table = os.path.join(args.out, "calibration.csv")
    rows = []
    if os.path.exists(table):  # the other platforms' rows stay
        with open(table, newline="") as f:
            rows = [r for r in csv.DictReader(f) if r["platform"] not in args.platforms]
    for platform in args.platforms:
        model = os.path.join(models, f"{platform}.toml")
        log(f"calibrating {platform} (16 ranks, 2 per node)")
        start = time.time()
        done = subprocess.run(
            [SIMCLUSTER, "run", "--native", "--platform", platform, "-n", "16", "--ppn", "2",
             *cfg_options(args), "--", os.path.join(smpi, "calibrate", "collsel-calibrate"), "-o", model,
             "--name", f"simulated-{platform}"],
            capture_output=True, text=True, env=dict(os.environ, COLLSEL_LOG_LEVEL="off"))
        wall = time.time() - start
        with open(os.path.join(models, f"{platform}.log"), "w") as f:
            f.write(done.stderr)
        simulated = ""
        for line in done.stderr.splitlines():
            if "MPI_Wtime:" in line:
                simulated = line.rsplit("MPI_Wtime:", 1)[1].strip(" s)")
        if done.returncode != 0:
            log(f"{platform}: collsel-calibrate failed; see {models}/{platform}.log")
            continue
        rows.append({"platform": platform, "ranks": 16, "ranks_per_node": 2,
                     "simulated_s": simulated, "wall_s": f"{wall:.1f}"})
        log(f"{platform}: {simulated} s simulated, {wall:.1f} s of wall time")
    with open(table, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=["platform", "ranks", "ranks_per_node", "simulated_s",
                                          "wall_s"])
        w.writeheader()
        w.writerows(rows)


def job_name(platform, P, ppn, coll, sizes, group):
    group = group.replace("smpi:", "smpi-")
    return f"{platform}-P{P}-ppn{ppn}-{coll}-{sizes[0]}-{sizes[-1]}-{len(sizes)}-{group}"


def list_natives(args):
    """{coll: [name, ...]} of the SMPI build's natives (selection --list-natives)."""
    smpi = os.path.join(build_dir(args), "smpi")
    out = subprocess.run([SIMCLUSTER, "run", "--native", "--platform", "gige", "-n", "1", "--",
                          os.path.join(smpi, "bench", "selection"), "--list-natives"],
                         capture_output=True, text=True, check=True).stdout
    natives = {}
    for line in out.splitlines():
        coll, name, kind = line.split()
        if kind != "library":
            natives.setdefault(coll, []).append(name)
    return natives


def job_csv(args, name):
    """A job's result file: once there (finished, failed or interrupted), the job is not run
    again."""
    return os.path.join(args.out, "raw", name + ".csv")


def run_job(args, platform, P, ppn, coll, sizes, group, suffix=""):
    raw = os.path.join(args.out, "raw")
    name = job_name(platform, P, ppn, coll, sizes, group) + suffix
    final = job_csv(args, name)
    if os.path.exists(final):
        return name, "done before", 0.0
    partial = final + ".partial"
    if os.path.exists(partial):
        os.remove(partial)
    model = os.path.join(args.out, "models", f"{platform}.toml")
    smpi = os.path.join(build_dir(args), "smpi")
    selection = [os.path.join(smpi, "bench", "selection"), "--csv", partial,
                 "--label", f"{platform},ppn={ppn}", "--coll", coll,
                 "--sizes", ",".join(str(s) for s in sizes), "--single-run",
                 "--max-variant-wall", str(args.max_variant_wall),
                 "--model", model] + (["--isolated"] if args.isolated else [])
    if group == "collsel":
        shim = ["--model", model, "--shim", os.path.join(smpi, "pmpi", "libcollsel-smpi.so")]
        selection += ["--also-default-model", "--also-closed-form"]
        if not native_in_collsel_job(coll, P, sizes):
            selection += ["--no-native"]
        if P >= 1024:
            selection += ["--fixed", ",".join(FIXED_AT_1024[coll])]
    elif group.startswith("fixed-"):
        shim = ["--model", model, "--shim", os.path.join(smpi, "pmpi", "libcollsel-smpi.so")]
        selection += ["--no-native", "--no-auto", "--fixed", group[len("fixed-"):]]
    elif group == "choices":
        shim = ["--model", model, "--shim", os.path.join(smpi, "pmpi", "libcollsel-smpi.so")]
        selection += ["--no-fixed", "--no-native"]
        if ppn > 1:  # the closed forms' choice beside the placement-aware one, as in "collsel"
            selection += ["--also-closed-form"]
    else:
        shim = ["--native"]
        selection += ["--no-native", "--no-collsel", "--natives", group]
    command = [SIMCLUSTER, "run", "--platform", platform, "-n", str(P), "--ppn", str(ppn),
               *cfg_options(args),
               *shim, "--shared-bytes", str(SHARED_BYTES), "--timeout", str(args.timeout), "--",
               *selection]
    start = time.time()
    with open(os.path.join(raw, name + ".log"), "w") as out:
        done = subprocess.run(command, stdout=out, stderr=subprocess.STDOUT,
                              env=dict(os.environ, COLLSEL_LOG_LEVEL="off"))
    wall = time.time() - start
    rows = 0
    if os.path.exists(partial):
        with open(partial) as f:
            rows = sum(1 for _ in f) - 1
    # smpirun exits 0 after SimGrid reports a deadlock: a job is complete when every size has
    # its rows.
    if done.returncode == 0 and rows >= len(sizes):
        os.rename(partial, final)
        return name, "ok", wall
    if os.path.exists(partial) and rows > 0:
        # What finished before the failure is kept, marked, and never re-run.
        os.rename(partial, final.replace(".csv", ".incomplete.csv"))
        open(final, "w").close()
        return name, f"INCOMPLETE ({rows} rows; exit {done.returncode}; see raw/{name}.log)", wall
    open(final, "w").close()
    return name, f"FAILED (exit {done.returncode}; see raw/{name}.log)", wall


def run_jobs(args, jobs, done=None):
    """Runs (platform, P, ppn, coll, sizes, group[, suffix]) jobs --jobs at a time, in the given
    order; done(job), if given, as each one ends (in this thread)."""
    log(f"{len(jobs)} jobs, {args.jobs} at a time, results in {args.out}/raw")
    started = time.time()
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        futures = {pool.submit(run_job, args, *j): j for j in jobs}
        for i, f in enumerate(concurrent.futures.as_completed(futures), 1):
            name, status, wall = f.result()
            log(f"{i}/{len(jobs)} {name}: {status} ({wall:.0f} s; {time.time() - started:.0f} s "
                f"so far)")
            if done:
                done(futures[f])


def planned(args):
    """(P, ppn, coll, sizes) of the plan's jobs that --ranks, --ppn, --colls, --min-bytes and
    --max-bytes keep. A job's name holds its sizes, so a run limited to some sizes is a job of its
    own beside the full one (its rows join the same points)."""
    for P, ppn, coll, sizes in plan(args.plan):
        sizes = [m for m in sizes if (args.max_bytes is None or m <= args.max_bytes)
                 and m >= args.min_bytes]
        if sizes and P in args.ranks and ppn in args.ppn and coll in args.colls:
            yield P, ppn, coll, sizes


SELECTOR_GROUPS = ("collsel", "smpi:mpich", "smpi:ompi")


def run_plan(args, natives):
    """(platform, P, ppn, coll, sizes, group) of a run, in the order they run: collsel and the
    MPICH and Open MPI selectors everywhere first, then SMPI's own algorithms (--selectors-only:
    the former only; --own-only: the latter only)."""
    jobs = []
    for platform in args.platforms:
        for P, ppn, coll, sizes in planned(args):
            # fast-ethernet with several ranks per node from 64 ranks on: SMPI 3.32 did not finish
            # an MPI_Comm_dup in 5 minutes of wall time (its flow solver, at this bandwidth only:
            # gige, the same network at 10x the bandwidth, takes 1 s). Its model, icluster-1, had
            # one CPU per node, so one rank per node is the case it stands for.
            if platform == "fast-ethernet" and ppn > 1 and P >= 64:
                continue
            groups = ["collsel"] + natives_of(coll, P, natives)
            if args.selectors_only:
                groups = [g for g in groups if g in SELECTOR_GROUPS]
            if args.own_only:
                groups = [g for g in groups if g not in SELECTOR_GROUPS]
            for group in groups:
                jobs.append((platform, P, ppn, coll, sizes, group))
    # Within each tier cheapest first (small P, Bcast before Scatter before Alltoall), so a
    # partial run has the headline figures.
    order = {"bcast": 0, "scatter": 1, "alltoall": 2}
    # All-to-All last within a tier: it is the costliest to simulate (every rank sends to every
    # other, and SMPI's flow model costs about the square of the flows in flight).
    tier = lambda group: 0 if group in SELECTOR_GROUPS else 1
    jobs.sort(key=lambda j: (tier(j[5]), j[3] == "alltoall", j[1], order[j[3]], j[2],
                             PLATFORMS.index(j[0])))
    return jobs


def run(args):
    os.makedirs(os.path.join(args.out, "raw"), exist_ok=True)
    for platform in args.platforms:
        if not os.path.exists(os.path.join(args.out, "models", f"{platform}.toml")):
            sys.exit(f"at_scale.py: no calibrated model for {platform}; run `at_scale.py "
                     f"calibrate --platforms {platform}` first")
    jobs = run_plan(args, list_natives(args))
    if args.dry_run:
        # What a run would simulate: the jobs run_job would not skip.
        todo = [j for j in jobs if not os.path.exists(job_csv(args, job_name(*j)))]
        for j in todo:
            log(f"to run: {job_name(*j)}")
        log(f"{len(todo)} of {len(jobs)} jobs to run, {len(jobs) - len(todo)} done before")
        return
    run_jobs(args, jobs)


def explain(cli, out, platform, P, ppn, coll, size, config=None):
    """`collsel explain --format json` (cli) for one point with OUT/models/PLATFORM.toml, at ppn
    ranks per node (filled placement, as the shim finds it under simcluster; one per node
    included: the All-to-All is simulated there too) or without a placement when ppn is None
    (what the closed forms alone choose), and with the config file `config` if given."""
    command = [cli, "explain", "--coll", coll, "-P", str(P), "-m", str(size), "--format", "json",
               "--model", os.path.join(out, "models", f"{platform}.toml")]
    if ppn is not None:
        command += ["--ranks-per-node", str(ppn)]
    if config:
        command += ["--config", config]
    return json.loads(subprocess.run(command, capture_output=True, text=True, check=True).stdout)


def explain_choice(args, platform, P, ppn, coll, size):
    """(algorithm, segment_bytes, window) that `collsel explain` gives for one point now."""
    d = explain(os.path.join(build_dir(args), "tools", "cli", "collsel"), args.out, platform, P,
                ppn, coll, size)
    return d["winner"], int(d["segment_bytes"]), int(d["window"])


def stale_points(args):
    """{(platform, P, ppn, coll): [sizes]} whose "auto" or "auto:closed-form" choice differs from
    the current build's."""
    stale = {}
    checked = 0
    # The latest measured choice per point: a rechoose's row replaces the first run's. An
    # interrupted job keeps what it measured in NAME.incomplete.csv (NAME.csv is then empty).
    latest = {}
    for path in (sorted(glob.glob(os.path.join(args.out, "raw", "*-collsel.csv")) +
                        glob.glob(os.path.join(args.out, "raw", "*-collsel.incomplete.csv"))) +
                 sorted(glob.glob(os.path.join(args.out, "raw", "*-choices.csv")))):
        if os.path.getsize(path) == 0:
            continue
        with open(path, newline="") as f:
            for r in csv.DictReader(f):
                # "auto:closed-form" (ranks sharing nodes): what the closed forms alone choose,
                # which explain gives without a placement.
                if r["variant"] not in ("auto", "auto:closed-form"):
                    continue
                platform, ppn = r["label"].split(",ppn=")
                latest[(platform, int(r["P"]), int(ppn), r["coll"], int(r["bytes"]),
                        r["variant"])] = r
    for (platform, P, ppn, coll, size, variant), r in sorted(latest.items()):
        if (platform not in args.platforms or P not in args.ranks or ppn not in args.ppn
                or coll not in args.colls or (args.max_bytes is not None and size > args.max_bytes)):
            continue
        if variant != "auto" and ppn == 1:
            continue  # without shared nodes the closed forms are the choice itself
        if size in stale.get((platform, P, ppn, coll), []):
            continue  # its other row moved: the job measures both again
        was = (r["algorithm"], int(r["segment_bytes"] or 0), int(r["window"] or 0))
        now = explain_choice(args, platform, P, ppn if variant == "auto" else None, coll, size)
        checked += 1
        # The segment and window only matter for the algorithms that take them (the others
        # carry 0; "segmented" in the name missed split_binary's and chain_preposted's segments).
        # --changed names algorithms whose code changed: their measured choices are stale
        # whatever the model says.
        if now[0] != was[0] or now[1] != was[1] or \
                (now[2] != was[2] and now[0] == "alltoall.windowed") or \
                now[0] in args.changed:
            log(f"{platform} P={P} ppn={ppn} {coll} {size} B ({variant}): {was} -> {now}")
            stale.setdefault((platform, P, ppn, coll), []).append(size)
    log(f"{checked} points checked, {sum(len(v) for v in stale.values())} choices changed")
    return stale


def extend(args):
    """Every job of the plan that has a collsel run, again with only --fixed's algorithms."""
    os.makedirs(os.path.join(args.out, "raw"), exist_ok=True)
    if args.skipped:
        measure_skipped(args, set(args.fixed))
        return
    jobs = []
    for platform in args.platforms:
        for P, ppn, coll, sizes in planned(args):
            name = job_name(platform, P, ppn, coll, sizes, "collsel")
            raw = os.path.join(args.out, "raw", name)
            # An interrupted job keeps its rows in NAME.incomplete.csv and leaves NAME.csv empty.
            measured = os.path.exists(raw + ".incomplete.csv") or (
                os.path.exists(raw + ".csv") and os.path.getsize(raw + ".csv") > 0)
            if not measured:
                continue  # no collsel run there to stand beside
            for fixed in args.fixed:
                if fixed.split(".")[0] == coll:
                    jobs.append((platform, P, ppn, coll, sizes, "fixed-" + fixed))
    jobs.sort(key=lambda j: (j[1], j[2], PLATFORMS.index(j[0])))
    run_jobs(args, jobs)


def read_rows(path):
    with open(path, newline="") as f:
        reader = csv.DictReader(f)
        return reader.fieldnames, list(reader)


def write_rows(path, fields, rows):
    with open(path, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=fields, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)


def drop_choice_rows(out, platform, P, ppn, coll, sizes):
    """Removes the rows of `sizes` from every choices file of (platform, P, ppn, coll); a file left
    without rows goes."""
    prefix = f"{platform}-P{P}-ppn{ppn}-{coll}-"
    for path in glob.glob(os.path.join(out, "raw", prefix + "*-choices.csv")):
        if os.path.getsize(path) == 0:
            continue
        fields, rows = read_rows(path)
        kept = [r for r in rows if int(r["bytes"]) not in sizes]
        if len(kept) == len(rows):
            continue
        if not kept:
            os.remove(path)
            continue
        write_rows(path, fields, kept)


def rechoose(args):
    os.makedirs(os.path.join(args.out, "raw"), exist_ok=True)
    if args.skipped:
        measure_skipped(args, {"auto"})
        return
    stale = stale_points(args)
    if args.dry_run:
        return
    # The stale points' rows measured an earlier build's choice: they go, so that the new row is
    # the point's only one (a finished job of the same name would not be run again either).
    for (platform, P, ppn, coll), sizes in stale.items():
        drop_choice_rows(args.out, platform, P, ppn, coll, set(sizes))
        name = job_name(platform, P, ppn, coll, sorted(sizes), "choices")
        for suffix in (".csv", ".incomplete.csv"):
            path = os.path.join(args.out, "raw", name + suffix)
            if os.path.exists(path):
                os.remove(path)
    jobs = [(platform, P, ppn, coll, sorted(sizes), "choices")
            for (platform, P, ppn, coll), sizes in stale.items()]
    jobs.sort(key=lambda j: (j[1], j[3], j[2], PLATFORMS.index(j[0])))
    run_jobs(args, jobs)


def skipped_rows(args, variants):
    """{(platform, P, ppn, coll, path): [sizes]}: the rows of `variants` that the wall guard
    skipped and that the report cannot fill, each in the file that holds it, within the run's
    filters. The report's own reading (at_scale_report.load) decides which row of a point and
    variant stands: the choices files last, a skipped row kept behind a measurement of the same
    call, and a skipped row filled from another variant's measurement of the same call."""
    targets = {}
    for (platform, ppn, coll, P, size), point in sorted(at_scale_report.load(args.out).items()):
        if (platform not in args.platforms or P not in args.ranks or ppn not in args.ppn
                or coll not in args.colls
                or (args.max_bytes is not None and size > args.max_bytes)):
            continue
        for variant in sorted(variants):
            r = point.get(variant)
            # An interrupted job's rows are not written over (replace_rows).
            if r is None or r["usable"] or r.get("skipped") != "1" or \
                    r["path"].endswith(".incomplete.csv"):
                continue
            log(f"{platform} P={P} ppn={ppn} {coll} {size} B {variant}: skipped in "
                f"{os.path.basename(r['path'])}")
            targets.setdefault((platform, P, ppn, coll, r["path"]), []).append(size)
    log(f"{sum(len(v) for v in targets.values())} skipped rows in {len(targets)} files")
    return targets


def measure_skipped(args, variants):
    """--skipped: the rows of `variants` that the wall guard skipped, measured again, each job's
    rows written over the skipped ones in the file that held them."""
    if args.max_variant_wall <= MAX_VARIANT_WALL_S:
        sys.exit(f"at_scale.py: --skipped measures what a {MAX_VARIANT_WALL_S} s guard skipped: "
                 f"give a larger --max-variant-wall (seconds of wall time per call)")
    targets = skipped_rows(args, variants)
    if args.dry_run:
        return
    jobs = {}
    for (platform, P, ppn, coll, path), sizes in targets.items():
        group = "choices" if "auto" in variants else "fixed-" + ",".join(
            sorted(v for v in variants if v.startswith(coll + ".")))
        jobs[(platform, P, ppn, coll, tuple(sorted(sizes)), group, "-again")] = path
    # Each job's rows go in as it ends, so that an interrupted run keeps what it measured.
    run_jobs(args, list(jobs), done=lambda job: replace_rows(args, job, jobs[job], variants))


def replace_rows(args, job, path, variants):
    """The rows of a --skipped job written over the skipped ones of `path`."""
    again = os.path.join(args.out, "raw", job_name(*job[:6]) + job[6] + ".csv")
    # An interrupted job's rows are in NAME.incomplete.csv (NAME.csv is then empty).
    incomplete = again.replace(".csv", ".incomplete.csv")
    measured = [p for p in (again, incomplete)
                if os.path.exists(p) and os.path.getsize(p) > 0]
    if not measured:
        if os.path.exists(again):
            os.remove(again)  # nothing measured: a later run tries again
        return
    new = {(r["variant"], r["bytes"]): r for r in read_rows(measured[0])[1]}
    fields, rows = read_rows(path)
    replaced = 0
    for i, r in enumerate(rows):
        # Only the skipped rows and the variants asked for: a choices job also measures the
        # closed forms' choice at 8 per node, which stays as it was where it was measured.
        fresh = new.get((r["variant"], r["bytes"]))
        if fresh and (r["variant"] in variants or r.get("skipped") == "1"):
            if fresh["algorithm"] != r["algorithm"]:
                log(f"{os.path.basename(path)} {r['bytes']} B {r['variant']}: "
                    f"{r['algorithm']} -> {fresh['algorithm']}")
            rows[i] = fresh
            replaced += 1
    write_rows(path, fields, rows)
    for p in (again, incomplete):
        if os.path.exists(p):
            os.remove(p)
    log(f"{os.path.basename(path)}: {replaced} rows replaced")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog=__doc__.split("\n\n", 1)[1])
    parser.add_argument("action", choices=["calibrate", "run", "rechoose", "extend"])
    parser.add_argument("--out", default=os.path.join(ROOT, "docs", "benchmarks", "at-scale"))
    parser.add_argument("--build", help="the primary build folder (default: build)")
    parser.add_argument("--platforms", nargs="+", default=PLATFORMS)
    parser.add_argument("--ppn", type=lambda s: [int(x) for x in s.split(",")], default=[1, 8])
    parser.add_argument("--ranks", type=lambda s: [int(x) for x in s.split(",")],
                        default=[16, 48, 64, 100, 256, 1024])
    parser.add_argument("--colls", type=lambda s: s.split(","),
                        default=["bcast", "scatter", "alltoall"])
    parser.add_argument("--plan", default="default")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--timeout", type=float, default=900,
                        help="seconds of wall time one simulation may take")
    parser.add_argument("--cfg", action="append", default=[], metavar="KEY:VALUE",
                        help="a SimGrid option for every simulation, calibration included (use "
                             "another --out: the models and results are then another platform's)")
    parser.add_argument("--fixed", type=lambda s: s.split(","), default=[],
                        help="extend: the collsel algorithms to measure at every point of the "
                             "plan that has a collsel run (a new algorithm)")
    parser.add_argument("--max-bytes", type=int,
                        help="run, rechoose, --skipped: only the sizes up to this many bytes")
    # The All-to-All's eager sizes cost minutes of wall time per call at P >= 64 on the Ethernets
    # (every message in flight at once), its rendezvous sizes seconds: a run from 256 KiB on
    # measures the large sizes that a full job, which goes up from 16 B, never reaches.
    parser.add_argument("--min-bytes", type=int, default=0,
                        help="run, extend: only the sizes from this many bytes on")
    selection = parser.add_mutually_exclusive_group()
    selection.add_argument("--selectors-only", action="store_true",
                           help="run: of SMPI's natives, only its MPICH and Open MPI selectors")
    selection.add_argument("--own-only", action="store_true",
                           help="run: only SMPI's own algorithms (neither collsel's job nor the "
                                "two selectors): what a run with --selectors-only left out")
    parser.add_argument("--changed", type=lambda s: s.split(","), default=[],
                        metavar="NAME[,NAME]",
                        help="rechoose: also re-measure the points where collsel chooses these "
                             "algorithms (their code changed; extend them first)")
    parser.add_argument("--dry-run", action="store_true",
                        help="run: only list the jobs not yet run; rechoose: only list the "
                             "points whose choice changed (with --skipped: the rows it would "
                             "measure again)")
    parser.add_argument("--isolated", action="store_true",
                        help="run, rechoose, extend: every call timed alone (selection "
                             "--isolated: one start instant, a quiet end); another --out, since "
                             "its times are not the default timing's")
    parser.add_argument("--skipped", action="store_true",
                        help="rechoose, extend: only the rows the wall guard skipped, measured "
                             "again with a larger --max-variant-wall")
    parser.add_argument("--max-variant-wall", type=float, default=MAX_VARIANT_WALL_S,
                        metavar="SECONDS",
                        help="a variant whose call took longer to simulate is skipped at the "
                             "job's larger sizes (default %(default)s)")
    args = parser.parse_args()
    args.out = os.path.abspath(args.out)
    {"calibrate": calibrate, "run": run, "rechoose": rechoose, "extend": extend}[args.action](args)


if __name__ == "__main__":
    main()
