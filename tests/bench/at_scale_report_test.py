#!/usr/bin/env python3
"""bench/at_scale_report.py on a made-up raw folder: which points "what collsel lacks" counts, and
the model's error per size (table and erel.csv)."""
import csv
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench"))
import at_scale_report as report  # noqa: E402

FIELDS = ["label", "coll", "P", "bytes", "variant", "algorithm", "segment_bytes", "predicted_s",
          "median_s", "kind", "failed", "correct", "simulated", "warmup_s", "skipped"]


def row(P, size, variant, kind, median_s, predicted_s=""):
    return {"label": "gige,ppn=1", "coll": "alltoall", "P": P, "bytes": size,
            "variant": variant, "algorithm": variant.split(":")[0], "segment_bytes": 0,
            "predicted_s": predicted_s, "median_s": median_s, "kind": kind, "failed": 0,
            "correct": 1, "simulated": 0, "warmup_s": "", "skipped": 0}


def write(folder, name, rows):
    os.makedirs(os.path.join(folder, "raw"), exist_ok=True)
    with open(os.path.join(folder, "raw", name), "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=FIELDS, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)


class Lacks(unittest.TestCase):
    def test_only_points_where_collsels_own_job_measured_its_choice(self):
        with tempfile.TemporaryDirectory() as out:
            # P = 16: collsel's job ran (its choice "auto" and a forced algorithm); P = 64: only
            # an algorithm added later by `extend`. SMPI's own is 1.5x faster at both.
            write(out, "gige-P16-collsel.csv", [
                row(16, 64, "alltoall.bruck", "fixed", 3e-6),
                row(16, 64, "auto", "auto", 3e-6)])
            write(out, "gige-P64-fixed.csv", [row(64, 64, "alltoall.mesh2d", "fixed", 3e-6)])
            write(out, "gige-smpi.csv", [row(16, 64, "smpi:2dmesh", "library", 2e-6),
                                         row(64, 64, "smpi:2dmesh", "library", 2e-6)])
            lines = []
            report.section_lacks(report.load(out), lines)
            self.assertIn("1 of 1 points.\n", lines)
            self.assertTrue(any(line.startswith("| smpi:2dmesh | 1 |") for line in lines))


class Rechosen(unittest.TestCase):
    def test_a_skipped_rerun_keeps_the_measured_choice_and_a_measured_one_replaces_it(self):
        with tempfile.TemporaryDirectory() as out:
            write(out, "gige-P16-collsel.csv", [row(16, 64, "auto", "auto", 3e-6),
                                                row(16, 256, "auto", "auto", 5e-6)])
            skipped = row(16, 64, "auto", "auto", "nan")
            skipped["skipped"] = 1
            moved = row(16, 256, "auto", "auto", 4e-6)
            moved["algorithm"] = "alltoall.mesh2d"
            write(out, "gige-P16-alltoall-64-256-2-choices.csv", [skipped, moved])
            points = report.load(out)
            self.assertEqual(report.usable_time(points[("gige", 1, "alltoall", 16, 64)], "auto"),
                             3e-6)
            self.assertEqual(report.usable_time(points[("gige", 1, "alltoall", 16, 256)], "auto"),
                             4e-6)
            # A skipped row of another algorithm is no measurement of it: the point has none.
            other = row(16, 64, "auto", "auto", "nan")
            other.update(skipped=1, algorithm="alltoall.bruck")
            write(out, "gige-P16-alltoall-64-64-1-choices.csv", [other])
            points = report.load(out)
            self.assertIsNone(report.usable_time(points[("gige", 1, "alltoall", 16, 64)], "auto"))


class FilledSkipped(unittest.TestCase):
    def test_a_skipped_row_takes_the_time_of_the_same_call_measured_at_its_point(self):
        with tempfile.TemporaryDirectory() as out:
            # The guard skipped "auto" (all_at_once) and the forced all_at_once; "auto:default"
            # ran the same all_at_once. The forced Bruck, skipped too, has no such row.
            auto = row(48, 1048576, "auto", "auto", "nan")
            auto.update(skipped=1, algorithm="alltoall.all_at_once")
            forced = row(48, 1048576, "alltoall.all_at_once", "fixed", "nan")
            forced["skipped"] = 1
            default = row(48, 1048576, "auto:default", "choice", 4.4)
            default.update(algorithm="alltoall.all_at_once", warmup_s=9.0)
            bruck = row(48, 1048576, "alltoall.bruck", "fixed", "nan")
            bruck["skipped"] = 1
            write(out, "gige-P48-collsel.csv", [auto, forced, default, bruck])
            point = report.load(out)[("gige", 1, "alltoall", 48, 1048576)]
            self.assertEqual(report.usable_time(point, "auto"), 4.4)
            self.assertEqual(report.usable_time(point, "alltoall.all_at_once"), 4.4)
            self.assertEqual(point["auto"]["filled_from"], "auto:default")
            self.assertIsNone(report.usable_time(point, "alltoall.bruck"))
            # The forced row's first call is no measure of the shim's first call.
            self.assertNotEqual(point["auto"]["warmup_s"], point["auto"]["warmup_s"])

    def test_another_segment_or_window_is_another_call(self):
        with tempfile.TemporaryDirectory() as out:
            auto = row(48, 65536, "auto", "auto", "nan")
            auto.update(skipped=1, algorithm="alltoall.windowed", window=8)
            forced = row(48, 65536, "alltoall.windowed", "fixed", 2.0)
            forced["window"] = 47
            os.makedirs(os.path.join(out, "raw"))
            with open(os.path.join(out, "raw", "gige-P48.csv"), "w", newline="") as f:
                writer = csv.DictWriter(f, fieldnames=FIELDS + ["window"], lineterminator="\n")
                writer.writeheader()
                writer.writerows([auto, forced])
            point = report.load(out)[("gige", 1, "alltoall", 48, 65536)]
            self.assertIsNone(report.usable_time(point, "auto"))


class TimedAlone(unittest.TestCase):
    def test_a_point_timed_alone_replaces_the_main_runs_whole_and_only_where_both_have_it(self):
        with tempfile.TemporaryDirectory() as main, tempfile.TemporaryDirectory() as alone:
            # Under the main run's timing Bruck looks 2x slower than the mesh; timed alone it is
            # the fastest. A point only the timed-alone run has, and one where it has no choice,
            # change nothing.
            write(main, "gige-P16-collsel.csv", [
                row(16, 64, "auto", "auto", 4e-6), row(16, 64, "alltoall.mesh2d", "fixed", 2e-6),
                row(16, 256, "auto", "auto", 5e-6)])
            write(main, "gige-P16-smpi-mpich.csv", [row(16, 64, "smpi:mpich", "library", 5e-6)])
            write(alone, "gige-P16-collsel.csv", [
                row(16, 64, "auto", "auto", 1e-6), row(16, 64, "alltoall.mesh2d", "fixed", 3e-6),
                row(16, 256, "alltoall.mesh2d", "fixed", 1e-6),
                row(48, 64, "auto", "auto", 1e-6)])
            points = report.load(main)
            self.assertEqual(report.timed_alone(points, report.load(alone)), 1)
            point = points[("gige", 1, "alltoall", 16, 64)]
            self.assertEqual(report.usable_time(point, "auto"), 1e-6)
            self.assertEqual(report.usable_time(point, "alltoall.mesh2d"), 3e-6)
            # Whole: the main run's selector row does not join the other timing's point.
            self.assertIsNone(report.usable_time(point, "smpi:mpich"))
            self.assertEqual(report.alone_mark(point), " (alone)")
            other = points[("gige", 1, "alltoall", 16, 256)]
            self.assertEqual(report.usable_time(other, "auto"), 5e-6)
            self.assertEqual(report.alone_mark(other), "")
            self.assertNotIn(("gige", 1, "alltoall", 48, 64), points)


class ErelBySize(unittest.TestCase):
    def test_table_and_csv_cells(self):
        with tempfile.TemporaryDirectory() as out:
            # One algorithm at one size, two P: predicted 1 ms, measured 2 ms and 1 ms, so
            # E_rel -50 % and 0: median |E_rel| 25 %, median signed -25 %, 2 points.
            write(out, "gige.csv", [
                row(16, 1024, "alltoall.bruck", "fixed", 2e-3, 1e-3),
                row(64, 1024, "alltoall.bruck", "fixed", 1e-3, 1e-3),
                row(16, 1024, "auto", "auto", 2e-3, 1e-3)])  # not a forced algorithm: left out
            lines = []
            path = os.path.join(out, "erel.csv")
            report.section_erel_by_size(report.load(out), lines, path)
            self.assertIn("| alltoall | 1 KiB | n/a | 25.0 % (-25.0 %) | n/a | n/a |", lines)
            with open(path, newline="") as f:
                cells = list(csv.DictReader(f))
            self.assertEqual(len(cells), 1)
            self.assertEqual((cells[0]["platform"], cells[0]["algorithm"], cells[0]["bytes"]),
                             ("gige", "alltoall.bruck", "1024"))
            self.assertEqual((cells[0]["median_abs_erel"], cells[0]["median_erel"],
                              cells[0]["points"]), ("0.2500", "-0.2500", "2"))


if __name__ == "__main__":
    unittest.main()
