#!/usr/bin/env python3
"""Acceptance test of `collsel export --format mpich-json`: MPICH accepts the file and runs the
algorithms it names.

Each case exports a file, runs export_probe.c under mpiexec with
MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE set (and no collsel shim), and checks that the program
exits 0 with correct data and that the messages the collective exchanged are those of the
algorithm the file selects for the call. The program reports, per rank, the sources of its
receives in posting order (it sees MPICH's UCX calls, export_probe.c says how); FINGERPRINTS
below are what each of MPICH 4.0's algorithms receives on 4 ranks, root 0, as their sources in
src/mpi/coll/bcast/, scatter/ and alltoall/ lay them out:

  MPIR_Bcast_intra_binomial                 rank 1 and 2 from 0, rank 3 from 2
  MPIR_Bcast_intra_scatter_ring_allgather   a binomial scatter, then each rank's left neighbour
                                            (rank - 1) P - 1 times, the root included
  MPIR_Scatter_intra_binomial               as the binomial Bcast
  MPIR_Alltoall_intra_pairwise              rank XOR 1, XOR 2, XOR 3 (P a power of two)
  MPIR_Alltoall_intra_brucks                rank - 1, rank - 2
  MPIR_Alltoall_intra_scattered             rank, rank + 1, rank + 2, rank + 3 (itself included)
  MPIR_Alltoall_intra_pairwise_sendrecv_replace  0, 1, 2, 3 (every pair in order, itself too)

Cases: forced files against each other and against MPICH's default (the same call, another
algorithm); the default model's file at every grid size it has for 4 ranks, checked against
the algorithm a reading of the file (select() below, MPICH's csel walk) names; an in-place
Alltoall; 3 ranks (odd P) for correct data; and every run also calls MPI_Allreduce, which the
file does not decide, so MPICH's own rules the file carries are exercised too.

  export_mpich_test.py --collsel collsel --probe export_probe --mpiexec mpiexec \
      --mpich-base /usr/lib/x86_64-linux-gnu/libmpich.so
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

RANKS = 4
# The switches the export's --help recommends, so the test runs what users are told to run.
DEVICE_OFF = {f"MPIR_CVAR_{c}_DEVICE_COLLECTIVE": "0" for c in ("BCAST", "SCATTER", "ALLTOALL")}


class Failure(Exception):
    pass


def check(condition, message):
    if not condition:
        raise Failure(message)


def is_ring_bcast(recv):
    p = len(recv)
    if not recv[0] or any(s != p - 1 for s in recv[0]):
        return False  # the root receives only in the allgather, from its left neighbour
    return all(r and all(s == (rank - 1) % p for s in r[1:]) for rank, r in enumerate(recv) if rank)


BINOMIAL = [[], [0], [0], [2]]
FINGERPRINTS = {
    "MPIR_Bcast_intra_binomial": lambda r: r == BINOMIAL,
    "MPIR_Bcast_intra_scatter_ring_allgather": is_ring_bcast,
    "MPIR_Scatter_intra_binomial": lambda r: r == BINOMIAL,
    "MPIR_Alltoall_intra_pairwise": lambda r: r == [[q ^ i for i in (1, 2, 3)] for q in range(4)],
    "MPIR_Alltoall_intra_brucks": lambda r: r == [[(q - 1) % 4, (q - 2) % 4] for q in range(4)],
    "MPIR_Alltoall_intra_scattered": lambda r: r == [[(q + i) % 4 for i in range(4)]
                                                     for q in range(4)],
    "MPIR_Alltoall_intra_pairwise_sendrecv_replace": lambda r: r == [list(range(4))] * 4,
}


def number_after(key, prefix):
    return int(key[len(prefix):]) if key.startswith(prefix) else None


def holds(key, coll, ranks, nbytes, in_place):
    """One condition of MPICH's selection language (src/mpi/coll/src/csel.c)."""
    if key == "any" or key.endswith("=any"):
        return True
    if key.startswith("collective="):
        return key == f"collective={coll}"
    if key in ("comm_type=intra", "comm_type=inter"):
        return key == "comm_type=intra"
    if key.startswith("is_sendbuf_inplace="):
        return key.endswith("yes") == in_place
    # comm_size<N holds at N too: MPIR_Csel_search compares it with <= (csel.c, MPICH 4.0.2).
    for prefix, value, strict in (("comm_size<=", ranks, False), ("comm_size<", ranks, False),
                                  ("avg_msg_size<=", nbytes, False),
                                  ("avg_msg_size<", nbytes, True)):
        bound = number_after(key, prefix)
        if bound is not None:
            return value < bound if strict else value <= bound
    raise Failure(f"the exported file has a key this test cannot read: {key}")


def select(node, coll, ranks, nbytes, in_place=False):
    """MPICH's walk: the first key that holds is followed, and never left again."""
    for key, value in node.items():
        if key.startswith("algorithm="):
            return key[len("algorithm="):]
        if holds(key, coll, ranks, nbytes, in_place):
            return select(value, coll, ranks, nbytes, in_place)
    raise Failure(f"no rule for {coll} on {ranks} ranks, {nbytes} bytes")


class Runner:
    def __init__(self, args, workdir):
        self.args = args
        self.workdir = workdir
        self.files = 0

    def export(self, config=None, extra=()):
        """Runs `collsel export --format mpich-json` and returns the file and its parsed JSON."""
        self.files += 1
        out = os.path.join(self.workdir, f"export{self.files}.json")
        cmd = [self.args.collsel, "export", "--format", "mpich-json", "--mpich-base",
               self.args.mpich_base, "-o", out, *extra]
        if config is not None:
            path = os.path.join(self.workdir, f"config{self.files}.toml")
            with open(path, "w") as f:
                f.write(config)
            cmd += ["--config", path]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        check(proc.returncode == 0, f"{' '.join(cmd)} exited {proc.returncode}:\n{proc.stderr}")
        with open(out) as f:
            return out, json.load(f)

    def run(self, selection, coll, nbytes, ranks=RANKS, in_place=False):
        """Runs the probe; `selection` is the exported file, or None for MPICH's own choice."""
        env = dict(os.environ)
        env.pop("LD_PRELOAD", None)  # MPICH alone: no collsel shim
        env.update(DEVICE_OFF)
        env.pop("MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE", None)
        if selection is not None:
            env["MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE"] = selection
        cmd = ["timeout", "120", self.args.mpiexec, "-n", str(ranks), self.args.probe, coll,
               str(nbytes)] + (["inplace"] if in_place else [])
        proc = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=self.workdir)
        what = f"{coll} {nbytes} B on {ranks} ranks{' in place' if in_place else ''} with " \
               f"{selection or 'MPICH defaults'}"
        check(proc.returncode == 0,
              f"{what}: exit {proc.returncode}\nstdout:\n{proc.stdout}\nstderr:\n{proc.stderr}")
        lines = [line for line in proc.stdout.splitlines() if line.startswith("{")]
        check(len(lines) == 1, f"{what}: expected one result line, got:\n{proc.stdout}")
        result = json.loads(lines[0])
        check(result["errors"] == 0, f"{what}: {result['errors']} wrong bytes")
        check(result["ucx_calls"] > 0,
              f"{what}: MPICH made no UCX call, so its messages cannot be observed here")
        return result

    def expect(self, selection, coll, nbytes, algorithm, in_place=False):
        result = self.run(selection, coll, nbytes, in_place=in_place)
        matches = FINGERPRINTS[algorithm](result["recv_from"])
        check(matches, f"{coll} {nbytes} B with {selection}: expected {algorithm}, but the "
                       f"ranks received from {result['recv_from']}")
        print(f"ok: {coll} {nbytes} B{' in place' if in_place else ''} -> {algorithm}")
        return result


def forced(r):
    """Files that force one algorithm select it, and two files select two different ones."""
    grid = ["--ranks", "4", "--sizes", "0,1k,64k"]
    segmented = "[override]\nsegment_bytes = 8192\n"
    bcast_tree, _ = r.export(segmented + 'bcast = "bcast.binomial"\n', grid)
    bcast_pipe, _ = r.export(segmented + 'bcast = "bcast.chain_segmented"\n', grid)
    r.expect(bcast_tree, "bcast", 65536, "MPIR_Bcast_intra_binomial")
    # chain_segmented cuts 64 KiB in 8 segments: MPICH 4.0's pipelined stand-in (export.cpp).
    r.expect(bcast_pipe, "bcast", 65536, "MPIR_Bcast_intra_scatter_ring_allgather")
    check(FINGERPRINTS["MPIR_Bcast_intra_binomial"](r.run(None, "bcast", 65536)["recv_from"]),
          "MPICH's own choice for a 64 KiB Bcast on 4 ranks is no longer binomial")

    bruck, _ = r.export('[override]\nalltoall = "alltoall.bruck"\n', grid)
    flood, _ = r.export('[override]\nalltoall = "alltoall.all_at_once"\n', grid)
    r.expect(bruck, "alltoall", 65536, "MPIR_Alltoall_intra_brucks")
    r.expect(flood, "alltoall", 65536, "MPIR_Alltoall_intra_scattered")
    # Without a file MPICH exchanges 64 KiB blocks pairwise: both files changed its choice.
    r.expect(None, "alltoall", 65536, "MPIR_Alltoall_intra_pairwise")
    # MPI_IN_PLACE goes to MPICH's only in-place Alltoall, whatever the grid says.
    r.expect(bruck, "alltoall", 1024, "MPIR_Alltoall_intra_pairwise_sendrecv_replace",
             in_place=True)

    flat, _ = r.export('[override]\nscatter = "scatter.flat"\n', grid)
    r.expect(flat, "scatter", 65536, "MPIR_Scatter_intra_binomial")


def model_driven(r):
    """The default model's file: at each of its grid sizes, the algorithm the file names runs."""
    path, doc = r.export(None, ["--ranks", "2,4,8"])
    changed = []
    for coll in ("bcast", "scatter", "alltoall"):
        for nbytes in (1, 64, 1024, 16384, 65536, 1 << 20):
            algorithm = select(doc, coll, RANKS, nbytes)
            check(algorithm in FINGERPRINTS,
                  f"the default model's file names {algorithm}, which this test cannot observe")
            with_file = r.expect(path, coll, nbytes, algorithm)
            if with_file["recv_from"] != r.run(None, coll, nbytes)["recv_from"]:
                changed.append(f"{coll} {nbytes} B")
    # A file that only repeats MPICH's defaults would prove nothing about the file being read.
    check(changed, "the default model agrees with MPICH everywhere on 4 ranks; pick another grid")
    print(f"ok: the default model's file changed MPICH's choice for {', '.join(changed)}")
    # Zero bytes, odd P and in place: accepted, correct data.
    for coll in ("bcast", "scatter", "alltoall"):
        r.run(path, coll, 0)
        r.run(path, coll, 1000, ranks=3)
    r.run(path, "alltoall", 1000, ranks=3, in_place=True)
    print("ok: 0 bytes, 3 ranks and in-place calls run with correct data")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--collsel", required=True)
    parser.add_argument("--probe", required=True)
    parser.add_argument("--mpiexec", required=True)
    parser.add_argument("--mpich-base", required=True)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="collsel-export-") as workdir:
        runner = Runner(args, workdir)
        try:
            forced(runner)
            model_driven(runner)
        except Failure as e:
            print(f"FAIL: {e}", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
