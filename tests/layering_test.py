#!/usr/bin/env python3
"""The layering of docs/ARCHITECTURE.md, checked on the sources: every quoted #include of a folder
names a folder it may depend on (itself or a lower layer), and the MPI-free folders never include
<mpi.h>. A new include that points up a layer fails here with the file, the line and the rule.

  layering_test.py SOURCE_DIR
"""
import os
import re
import sys

# folder -> the folders its files may include (its own is always allowed). Lowest layers first.
ALLOWED = {
    "conf": [],
    "common": [],
    "models": ["common"],
    "flavour": [],
    "selector": ["models", "common", "conf", "flavour"],
    # MPI-free units of pmpi/ (loaded_objects, call_site, size_bucket) serve tools/ too.
    "pmpi": ["selector", "models", "common", "conf", "flavour"],
    "calibrate": ["selector", "models", "common", "conf", "flavour"],
    "tools/logs": ["pmpi", "models", "common"],
    "tools/decisions": ["selector", "models", "common", "conf"],
    "tools/modeling": ["selector", "models", "common", "conf"],
    "tools/report": ["tools/logs", "tools/decisions", "pmpi", "selector", "models", "common"],
    "tools/plots": ["tools/report", "tools/logs", "tools/decisions", "selector", "models",
                    "common"],
    "tools/cli": ["tools/plots", "tools/report", "tools/logs", "tools/decisions",
                  "tools/modeling", "selector", "models", "common", "conf"],
    "bench": ["calibrate", "pmpi", "selector", "models", "common", "conf", "flavour"],
}
NO_MPI = {"conf", "common", "models", "tools/logs", "tools/decisions", "tools/modeling",
          "tools/report", "tools/plots", "tools/cli"}
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')


def folder_of(path):
    """The most specific folder of ALLOWED a (relative) path lies in."""
    best = None
    for f in ALLOWED:
        if path.startswith(f + "/") and (best is None or len(f) > len(best)):
            best = f
    return best


def main():
    root = sys.argv[1]
    problems = []
    checked = 0
    for folder in ALLOWED:
        for dirpath, _, files in os.walk(os.path.join(root, folder)):
            for name in files:
                if not name.endswith((".cpp", ".hpp", ".h", ".c", ".in")):
                    continue
                path = os.path.relpath(os.path.join(dirpath, name), root)
                if folder_of(path) != folder:
                    continue  # a deeper folder of ALLOWED judges it
                checked += 1
                with open(os.path.join(root, path), encoding="utf-8") as f:
                    for number, line in enumerate(f, 1):
                        m = INCLUDE.match(line)
                        if not m:
                            continue
                        kind, target = m.groups()
                        if kind == "<":
                            if target == "mpi.h" and folder in NO_MPI:
                                problems.append(f"{path}:{number}: <mpi.h> in {folder}/, which "
                                                "must not depend on MPI")
                            continue
                        target_folder = folder_of(target)
                        if target_folder is None or target_folder == folder:
                            continue  # a generated header or the folder's own
                        if target_folder not in ALLOWED[folder]:
                            problems.append(
                                f"{path}:{number}: {folder}/ includes {target} from "
                                f"{target_folder}/; it may include only "
                                f"{', '.join(ALLOWED[folder]) or 'its own folder'} "
                                "(docs/ARCHITECTURE.md, \"Layers and dependencies\")")
    for p in problems:
        print(p)
    print(f"layering: {checked} files checked, {len(problems)} problem(s)")
    return 1 if problems or checked < 100 else 0


if __name__ == "__main__":
    sys.exit(main())
