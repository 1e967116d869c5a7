#!/usr/bin/env python3
"""tools/simcluster and the SMPI build, end to end (correctness only, no timing assertions).

  refusals       each bad request gets one "simcluster:" message saying what to do, exit 2, no
                 stack trace: an unparsable platform file, more ranks than the platform holds,
                 a missing model, a program not built for SMPI, an unknown platform
  logs           the SMPI example under collsel on 16 simulated ranks (2 nodes): correct results,
                 one log file per rank, every record parses, and all ranks ran the same algorithm
                 for each call; --native runs the same program without collsel (no log)
  deterministic  the same point of the selection benchmark, simulated twice: identical times
  timeout        --timeout stops the whole simulation (smpirun and smpimain), exit 124, and
                 SIGTERM to simcluster does too: no simulated rank is left running
  isolated       the selection benchmark's --isolated: every call starts on every rank at one
                 simulated instant (the largest start spread it reports is below 10 ns, where a
                 barrier alone leaves microseconds) with correct results; the MPICH build, whose
                 ranks have separate clocks, refuses the option with one message and exit 2
"""
import argparse
import csv
import glob
import json
import os
import re
import subprocess
import sys
import tempfile


class Failure(Exception):
    pass


def check(condition, message):
    if not condition:
        raise Failure(message)


def simcluster(args, *argv, env=None):
    full = dict(os.environ, COLLSEL_CONFIG="/dev/null")
    full.update(env or {})
    return subprocess.run([args.simcluster, *argv], capture_output=True, text=True, env=full,
                          timeout=240)


def refusal(args, words, *argv):
    proc = simcluster(args, *argv)
    lines = [l for l in proc.stderr.splitlines() if l.strip()]
    check(proc.returncode == 2, f"{argv}: exit {proc.returncode}, expected 2\n{proc.stderr}")
    check(len(lines) == 1 and lines[0].startswith("simcluster: "),
          f"{argv}: expected one 'simcluster:' line, got:\n{proc.stderr}")
    check("Traceback" not in proc.stderr, f"{argv}: a stack trace:\n{proc.stderr}")
    for w in words:
        check(w in lines[0], f"{argv}: '{w}' missing from: {lines[0]}")


def case_refusals(args, tmp):
    example = os.path.join(args.smpi_build, "examples", "collectives")
    bad = os.path.join(tmp, "bad.xml")
    with open(bad, "w") as f:
        f.write("<?xml version='1.0'?>\n<platform version=\"4.1\">\n  <cluster id=\"c\"\n")
    refusal(args, [bad + ":", "not a valid platform file"],
            "run", "--platform", bad, "-n", "2", "--", example)
    refusal(args, ["-n 8200 at --ppn 8", "needs 1025 nodes", "has 1024", "use -n 8192"],
            "run", "--platform", "gige", "-n", "8200", "--ppn", "8", "--", example)
    refusal(args, ["no such model file", "collsel-calibrate"],
            "run", "--platform", "gige", "-n", "2", "--model", os.path.join(tmp, "none.toml"),
            "--", example)
    refusal(args, ["not built for SMPI", "smpicc"],
            "run", "--platform", "gige", "-n", "2", "--", args.native_program)
    refusal(args, ["unknown platform 'nowhere'", "valid:", "ib-fattree"],
            "run", "--platform", "nowhere", "-n", "2", "--", example)


def case_logs(args, tmp):
    example = os.path.join(args.smpi_build, "examples", "collectives")
    logs = os.path.join(tmp, "logs")
    proc = simcluster(args, "run", "--platform", "ib-fattree", "-n", "16", "--ppn", "8", "--",
                      example, "2", "4096", env={"COLLSEL_LOG_DIR": logs})
    check(proc.returncode == 0, f"exit {proc.returncode}:\n{proc.stdout}\n{proc.stderr}")
    check("16 ranks" in proc.stdout and " 0 wrong values" in proc.stdout,
          f"the example did not report 16 ranks and 0 wrong values:\n{proc.stdout}")
    files = glob.glob(os.path.join(logs, "*", "rank-*.jsonl"))
    check(len(files) == 16, f"{len(files)} log files, expected 16: {files}")
    algorithms = {}  # (comm, seq) -> set of algorithms over ranks
    calls = 0
    for path in files:
        with open(path) as f:
            for line in f:
                record = json.loads(line)
                if record.get("type") != "call":
                    continue
                calls += 1
                algorithms.setdefault((record["comm"], record["seq"]), set()).add(
                    (record["coll"], record["algorithm"]))
    check(calls > 0, "no call records")
    split = {k: v for k, v in algorithms.items() if len(v) != 1}
    check(not split, f"ranks ran different algorithms for one call: {list(split.items())[:3]}")
    # Without collsel: the same program, SMPI's own collectives, nothing logged.
    native_logs = os.path.join(tmp, "native-logs")
    proc = simcluster(args, "run", "--native", "--platform", "ib-fattree", "-n", "16", "--ppn",
                      "8", "--", example, "2", "4096", env={"COLLSEL_LOG_DIR": native_logs})
    check(proc.returncode == 0 and " 0 wrong values" in proc.stdout,
          f"--native run failed:\n{proc.stdout}\n{proc.stderr}")
    check(not os.path.exists(native_logs), "--native wrote collsel logs")


def still_running(marker):
    """PIDs of processes whose command line holds `marker`, other than this test's own."""
    found = subprocess.run(["pgrep", "-f", marker], capture_output=True, text=True).stdout.split()
    return [p for p in found if int(p) != os.getpid()]


def case_timeout(args, tmp):
    import signal
    import time
    example = os.path.join(args.smpi_build, "examples", "collectives")
    # A repeat count no other run uses marks this test's simulation in the process table; a
    # million repeats of 1 MiB collectives on 64 ranks take far longer than the 3 s allowed.
    marker = "987653"
    full = dict(os.environ, COLLSEL_CONFIG="/dev/null")
    start = time.time()
    proc = subprocess.run([args.simcluster, "run", "--platform", "gige", "-n", "64", "--native",
                           "--timeout", "3", "--", example, marker, "1048576"],
                          capture_output=True, text=True, env=full, timeout=120)
    check(proc.returncode == 124, f"exit {proc.returncode}, expected 124:\n{proc.stderr}")
    check("ran past --timeout 3" in proc.stderr, f"no timeout message:\n{proc.stderr}")
    check(time.time() - start < 60, "the timeout took more than a minute")
    time.sleep(1)
    left = still_running(marker)
    check(not left, f"processes of the stopped simulation still run: {left}")

    # SIGTERM to simcluster (a driver stopping it) stops the simulation too.
    child = subprocess.Popen([args.simcluster, "run", "--platform", "gige", "-n", "64", "--native",
                              "--", example, marker, "1048576"], env=full,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 30
    while not [p for p in still_running(marker) if int(p) != child.pid] and \
            time.time() < deadline:
        time.sleep(0.2)
    time.sleep(1)
    child.send_signal(signal.SIGTERM)
    child.wait(timeout=60)
    time.sleep(1)
    left = still_running(marker)
    if left:
        subprocess.run(["kill", "-9", *left])
    check(not left, f"SIGTERM left the simulation running: {left}")


def case_deterministic(args, tmp):
    rows = []
    for k in range(2):
        out = os.path.join(tmp, f"run{k}.csv")
        proc = simcluster(args, "run", "--platform", "gige", "-n", "16", "--ppn", "8", "--",
                          os.path.join(args.smpi_build, "bench", "selection"), "--csv", out,
                          "--coll", "bcast", "alltoall", "--sizes", "16,65536", "--reps", "1",
                          "--min-reps", "1", "--natives", "smpi:ompi",
                          env={"COLLSEL_LOG_LEVEL": "off"})
        check(proc.returncode == 0, f"run {k}: exit {proc.returncode}\n{proc.stderr}")
        with open(out) as f:
            rows.append([(r["coll"], r["bytes"], r["variant"], r["median_s"])
                         for r in csv.DictReader(f)])
    check(len(rows[0]) > 20, f"only {len(rows[0])} rows")
    check(rows[0] == rows[1], "two simulations of the same points gave different times")


def case_isolated(args, tmp):
    out = os.path.join(tmp, "isolated.csv")
    proc = simcluster(args, "run", "--platform", "fast-ethernet", "-n", "16", "--",
                      os.path.join(args.smpi_build, "bench", "selection"), "--csv", out,
                      "--coll", "bcast", "scatter", "--sizes", "64,4096", "--single-run",
                      "--isolated", "--fixed", "bcast.flat,bcast.binomial,scatter.flat",
                      env={"COLLSEL_LOG_LEVEL": "off"})
    check(proc.returncode == 0, f"exit {proc.returncode}\n{proc.stderr}")
    lag = re.search(r"isolated calls: the ranks' starts at most ([0-9.]+) us apart", proc.stderr)
    check(lag is not None, f"no start spread reported:\n{proc.stderr}")
    check(float(lag.group(1)) < 0.01, f"the ranks started {lag.group(1)} us apart")
    with open(out) as f:
        rows = list(csv.DictReader(f))
    check(len(rows) >= 8, f"only {len(rows)} rows")
    check(all(r["failed"] == "0" and r["correct"] == "1" for r in rows),
          "a call failed or returned wrong bytes")
    mpich = subprocess.run([args.mpiexec, "-n", "1", args.mpich_selection, "--csv",
                            os.path.join(tmp, "mpich.csv"), "--isolated"],
                           capture_output=True, text=True, timeout=120,
                           env=dict(os.environ, COLLSEL_CONFIG="/dev/null"))
    lines = [l for l in mpich.stderr.splitlines() if l.startswith("selection:")]
    check(mpich.returncode == 2, f"MPICH build: exit {mpich.returncode}, expected 2")
    check(len(lines) == 1 and "--isolated needs one clock" in lines[0],
          f"MPICH build: expected one refusal, got:\n{mpich.stderr}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("case",
                        choices=["refusals", "logs", "deterministic", "timeout", "isolated"])
    parser.add_argument("--simcluster", required=True)
    parser.add_argument("--smpi-build", required=True)
    parser.add_argument("--native-program", required=True,
                        help="a program built for MPICH, which simcluster must refuse")
    parser.add_argument("--mpich-selection", help="bench/selection of the MPICH build")
    parser.add_argument("--mpiexec", help="MPICH's mpiexec")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        try:
            {"refusals": case_refusals, "logs": case_logs,
             "deterministic": case_deterministic, "timeout": case_timeout,
             "isolated": case_isolated}[args.case](args, tmp)
        except Failure as e:
            print(f"FAIL {args.case}: {e}")
            return 1
    print(f"ok {args.case}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
