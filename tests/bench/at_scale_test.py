#!/usr/bin/env python3
"""bench/at_scale.py's planning, without a simulation: which jobs a run's filters keep and what
they are named."""
import argparse
import csv
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench"))
import at_scale  # noqa: E402


def args(**kw):
    base = dict(plan="default", ranks=[100], ppn=[1], colls=["alltoall"], max_bytes=None,
                min_bytes=0)
    base.update(kw)
    return argparse.Namespace(**base)


class Planned(unittest.TestCase):
    def test_min_bytes_keeps_the_large_sizes_in_a_job_of_their_own(self):
        full = list(at_scale.planned(args()))
        large = list(at_scale.planned(args(min_bytes=256 * 1024)))
        self.assertEqual([16 * 4 ** i for i in range(9)], full[0][3])
        self.assertEqual([(100, 1, "alltoall", [262144, 1048576])], large)
        # Its own name: the full job's file (done, or interrupted) does not stop it.
        names = {at_scale.job_name("gige", *j, "collsel") for j in full + large}
        self.assertEqual({"gige-P100-ppn1-alltoall-16-1048576-9-collsel",
                          "gige-P100-ppn1-alltoall-262144-1048576-2-collsel"}, names)

    def test_both_bounds_together_and_an_empty_range_plans_nothing(self):
        self.assertEqual([(100, 1, "alltoall", [4096, 16384])],
                         list(at_scale.planned(args(min_bytes=4096, max_bytes=16384))))
        self.assertEqual([], list(at_scale.planned(args(min_bytes=4 << 20))))

    def test_the_alltoall256_plan_has_every_size_where_the_default_plan_has_three(self):
        spot = list(at_scale.planned(args(ranks=[256], ppn=[1, 8])))
        every = list(at_scale.planned(args(plan="alltoall256", ranks=[256], ppn=[1, 8],
                                           max_bytes=1024)))
        self.assertEqual([(256, 1, "alltoall", [64, 4096, 65536]),
                          (256, 8, "alltoall", [64, 4096, 65536])], spot)
        self.assertEqual([(256, 1, "alltoall", [16, 64, 256, 1024]),
                          (256, 8, "alltoall", [16, 64, 256, 1024])], every)
        self.assertEqual([], list(at_scale.planned(args(plan="alltoall256", colls=["bcast"],
                                                        ranks=[256]))))


class RunPlan(unittest.TestCase):
    NATIVES = {"bcast": ["smpi:mpich", "smpi:ompi", "smpi:binomial_tree", "smpi:NTSB"]}

    def plan(self, **kw):
        base = dict(platforms=["gige", "fast-ethernet"], ranks=[16, 64], ppn=[1, 8],
                    colls=["bcast"], selectors_only=False, own_only=False)
        base.update(kw)
        return at_scale.run_plan(args(**base), self.NATIVES)

    def test_selectors_first_and_own_only_keeps_what_selectors_only_leaves_out(self):
        every = self.plan()
        groups = [j[5] for j in every]
        # collsel's job and the two selectors before any of SMPI's own algorithms; NTSB is left
        # out for its cost; fast-ethernet at 8 per node only below 64 ranks.
        self.assertEqual({"collsel", "smpi:mpich", "smpi:ompi", "smpi:binomial_tree"}, set(groups))
        first_own = groups.index("smpi:binomial_tree")
        self.assertTrue(all(g != "smpi:binomial_tree" for g in groups[:first_own]))
        self.assertTrue(all(g == "smpi:binomial_tree" for g in groups[first_own:]))
        self.assertNotIn(("fast-ethernet", 64, 8), {j[:3] for j in every})
        self.assertEqual(7 * 4, len(every))  # 7 (platform, P, ppn), 4 groups each
        selectors = self.plan(selectors_only=True)
        own = self.plan(own_only=True)
        self.assertEqual({"collsel", "smpi:mpich", "smpi:ompi"}, {j[5] for j in selectors})
        self.assertEqual({"smpi:binomial_tree"}, {j[5] for j in own})
        self.assertEqual(sorted(every), sorted(selectors + own))


class NativeInCollselJob(unittest.TestCase):
    def test_the_default_alltoall_is_left_to_its_own_job_where_it_aborts_or_from_256_ranks(self):
        self.assertTrue(at_scale.native_in_collsel_job("alltoall", 100, [16, 65536]))
        self.assertFalse(at_scale.native_in_collsel_job("alltoall", 100, [65536, 262144]))
        self.assertFalse(at_scale.native_in_collsel_job("alltoall", 256, [64]))
        self.assertTrue(at_scale.native_in_collsel_job("bcast", 1024, [16]))


class DefaultAlltoall(unittest.TestCase):
    def test_smpis_pair_algorithm_only_below_powers_of_two_and_where_open_mpi_picks_it(self):
        # Seen: P = 100 aborted at 256 KiB and 1 MiB; P = 48 and 64 ran every size.
        self.assertTrue(at_scale.default_alltoall_aborts(100, 262144))
        self.assertTrue(at_scale.default_alltoall_aborts(100, 1048576))
        self.assertFalse(at_scale.default_alltoall_aborts(100, 65536))
        for P in (48, 64, 256, 1024):
            self.assertFalse(at_scale.default_alltoall_aborts(P, 1048576), P)
        self.assertTrue(at_scale.default_alltoall_aborts(384, 32768))
        self.assertTrue(at_scale.default_alltoall_aborts(6, 524288))
        self.assertFalse(at_scale.default_alltoall_aborts(6, 1048576))


class SkippedRows(unittest.TestCase):
    def test_only_the_rows_no_measurement_of_the_same_call_fills(self):
        fields = ["label", "coll", "P", "bytes", "variant", "algorithm", "segment_bytes",
                  "window", "predicted_s", "median_s", "kind", "failed", "correct", "simulated",
                  "warmup_s", "skipped"]

        def row(size, variant, kind, median_s, skipped):
            return {"label": "gige,ppn=1", "coll": "alltoall", "P": 48, "bytes": size,
                    "variant": variant, "algorithm": "alltoall.all_at_once", "segment_bytes": 0,
                    "window": 0, "predicted_s": 1.0, "median_s": median_s, "kind": kind,
                    "failed": 0, "correct": 1, "simulated": 0, "warmup_s": "", "skipped": skipped}
        with tempfile.TemporaryDirectory() as out:
            os.makedirs(os.path.join(out, "raw"))
            path = os.path.join(out, "raw", "gige-P48-ppn1-alltoall-65536-1048576-2-collsel.csv")
            with open(path, "w", newline="") as f:
                writer = csv.DictWriter(f, fieldnames=fields, lineterminator="\n")
                writer.writeheader()
                # 1 MiB: "auto" skipped, "auto:default" ran the same all_at_once; 64 KiB: nothing
                # ran it.
                writer.writerows([row(65536, "auto", "auto", "nan", 1),
                                  row(1048576, "auto", "auto", "nan", 1),
                                  row(1048576, "auto:default", "choice", 4.4, 0)])
            targets = at_scale.skipped_rows(
                args(out=out, platforms=["gige"], ranks=[48]), {"auto"})
            self.assertEqual({("gige", 48, 1, "alltoall", path): [65536]}, targets)


if __name__ == "__main__":
    unittest.main()
