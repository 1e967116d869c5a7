#!/usr/bin/env python3
"""End-to-end test of what collsel did not see (issue 17): the collectives collsel does not serve
pass through the shim's wrappers (pmpi/uncovered.cpp) with their results intact (the program checks
every value) and are counted per rank in `uncovered` log records; `collsel report` shows them and
the share of the collective time collsel served.

The program is tests/pmpi/programs/uncovered.c: Allreduce, Alltoallv and Ibcast, then one Bcast
(which collsel serves), then Bcasts each on a new duplicate used once (run native before
[runtime] serve_from_call, counted with reason "before_serving", not traced); it prints the counts
it made ("UNCOVERED allreduce=7 ...").

  e2e_uncovered.py --case counts --program ./uncovered --ranks 3 --mpiexec mpiexec \\
      --shim libcollsel.so --collsel collsel
"""
import os
import pathlib
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import e2e  # noqa: E402
from e2e import check  # noqa: E402


def case_counts(args, work):
    """Every rank's `uncovered` records count exactly the program's calls, each with a time; the
    report's rows and served share add up."""
    logdir = work / "logs"
    proc = e2e.run(args, e2e.base_env(logdir), work)
    e2e.program_verdict(proc)
    made = re.search(r"UNCOVERED allreduce=(\d+) alltoallv=(\d+) ibcast=(\d+) "
                     r"before_serving=(\d+)", proc.stdout)
    check(made, f"the program printed no counts:\n{proc.stdout}")
    before_serving = int(made.group(4))
    expected = {"MPI_Allreduce": int(made.group(1)), "MPI_Alltoallv": int(made.group(2)),
                "MPI_Ibcast": int(made.group(3))}
    timing = {"MPI_Allreduce": "whole", "MPI_Alltoallv": "whole", "MPI_Ibcast": "initiation"}
    e2e.read_logs(logdir, args.ranks)
    run_dir = next(d for d in logdir.iterdir() if d.is_dir())
    for f in sorted(run_dir.glob("rank-*.jsonl")):
        records = e2e.records_of(f.read_text(), f.name)
        check(records[-1]["type"] == "end" and records[-1].get("uncovered_counted") is True,
              f"{f.name}: the end record does not say the uncovered calls were counted")
        early = [r for r in records if r["type"] == "uncovered" and "reason" in r]
        check(len(early) == 1 and early[0]["function"] == "MPI_Bcast"
              and early[0]["reason"] == "before_serving" and early[0]["calls"] == before_serving
              and early[0]["time_s"] > 0,
              f"{f.name}: the Bcasts before serve_from_call are not counted "
              f"{before_serving} times: {early}")
        uncovered = {r["function"]: r for r in records
                     if r["type"] == "uncovered" and "reason" not in r}
        # The program's MPI_Reduce of its verdict is counted too (on every rank).
        check(uncovered.get("MPI_Reduce", {}).get("calls") == 1,
              f"{f.name}: MPI_Reduce not counted once: {uncovered.get('MPI_Reduce')}")
        del uncovered["MPI_Reduce"]
        check(set(uncovered) == set(expected),
              f"{f.name}: uncovered functions {sorted(uncovered)}, expected {sorted(expected)}")
        for name, n in expected.items():
            r = uncovered[name]
            check(r["calls"] == n, f"{f.name}: {name} counted {r['calls']} calls, made {n}")
            check(r["timing"] == timing[name], f"{f.name}: {name} timing {r['timing']}")
            check(r["time_s"] > 0, f"{f.name}: {name} has no time")
        calls = [r for r in records if r["type"] == "call"]
        check([c["coll"] for c in calls] == ["bcast"], f"{f.name}: call records {calls}")

    doc = e2e.collsel_report(args, logdir)
    rows = {u["function"]: u for u in doc["uncovered"] if not u["reason"]}
    early = [u for u in doc["uncovered"] if u["reason"] == "before_serving"]
    check(len(early) == 1 and early[0]["calls"] == before_serving
          and early[0]["ranks"] == args.ranks, f"report's before_serving rows {early}")
    for name, n in expected.items():
        check(rows[name]["calls"] == n and rows[name]["ranks"] == args.ranks,
              f"report row {rows.get(name)}")
    cov = doc["coverage"]
    check(cov["counted"], "the report says the uncovered calls were not counted")
    whole = sum(u["time_s"] for u in doc["uncovered"]
                if u["timing"] == "whole" and not u["reason"])
    check(e2e.close(cov["before_serving_s"], early[0]["time_s"]),
          f"before_serving_s {cov['before_serving_s']} != {early[0]['time_s']}")
    check(e2e.close(cov["uncovered_s"], whole), f"uncovered_s {cov['uncovered_s']} != {whole}")
    served = sum(t["time_s"] for t in doc["totals"] if t["algorithm"] not in ("native", "*"))
    check(e2e.close(cov["served_s"], served), "served_s is not the served totals")
    share = cov["served_share"]
    check(share is not None and e2e.close(share, served / (served + cov["native_s"] + whole)),
          f"served_share {share}")
    check(0 < share < 1, f"the share served is {share}: the program spent time in both")
    text = e2e.subprocess.run([args.collsel, "report", str(logdir)], capture_output=True,
                              text=True).stdout
    check("collectives collsel does not serve" in text and "MPI_Alltoallv" in text
          and "before [runtime] serve_from_call" in text,
          f"the text report lacks the section:\n{text}")
    html_dir = work / "html"
    e2e.subprocess.run([args.collsel, "report", str(logdir), "--html", str(html_dir)],
                       capture_output=True, text=True)
    page = (html_dir / "index.html").read_text() if (html_dir / "index.html").exists() else ""
    check("before [runtime] serve_from_call" in page and "MPI_Alltoallv" in page,
          "the HTML report lacks the calls before serve_from_call or the uncovered table")


CASES = {name[5:]: fn for name, fn in globals().items() if name.startswith("case_")}

if __name__ == "__main__":
    e2e.CASES = CASES
    sys.exit(e2e.main())
