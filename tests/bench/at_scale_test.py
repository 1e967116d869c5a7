#!/usr/bin/env python3
"""bench/at_scale.py's planning, without a simulation: which jobs a run's filters keep and what
they are named."""
import argparse
import os
import sys
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


if __name__ == "__main__":
    unittest.main()
