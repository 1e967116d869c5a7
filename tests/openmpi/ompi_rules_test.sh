#!/usr/bin/env bash
# `collsel export --format ompi-rules`, read by Open MPI 4.1.4 itself: a job without the shim,
# with coll_tuned_use_dynamic_rules and the exported file, must run the file's Bcast algorithm.
# Debian's Open MPI is not a debug build, so coll/tuned's decision messages (OPAL_OUTPUT_VERBOSE)
# are compiled out; what ran is seen instead in pml/monitoring's count of the collective's
# internal messages per pair of ranks ("I" lines), whose pattern tells the algorithms apart at
# P = 4: basic linear 0>1 0>2 0>3, chain 0>1 1>2 2>3, Open MPI's fixed choice (binomial here)
# 0>1 0>2 1>3. Each forced collsel algorithm must give its pattern, and the fixed rules another.
# Usage: ompi_rules_test.sh COLLSEL MPIEXEC_OPENMPI PROGRAM
set -euo pipefail
collsel=$1 mpiexec=$2 program=$3
work=$(mktemp -d /tmp/collsel-ompi-rules.XXXXXX)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# The pairs (sender>receiver) that carried collective-internal messages in a 4-rank run of
# PROGRAM (tests/openmpi/bcast_only.c: 1-byte Bcasts from root 0 only), sorted, on one line.
pairs() {
  local out=$work/mon.$1
  timeout 120 "$mpiexec" --oversubscribe --allow-run-as-root --bind-to none --mca btl self,vader \
    -n 4 --mca pml_monitoring_enable 2 --mca pml_monitoring_enable_output 3 \
    --mca pml_monitoring_filename "$out" "${@:2}" "$program" >/dev/null ||
    fail "the job ($1) failed"
  cat "$out".*.prof | awk '$1 == "I" {print $2 ">" $3}' | sort | tr '\n' ' '
}

native=$(pairs native)
[[ -n $native ]] || fail "pml/monitoring counted no collective messages"
for case in "bcast.flat;0>1 0>2 0>3 " "bcast.chain;0>1 1>2 2>3 "; do
  algorithm=${case%%;*} expected=${case#*;}
  printf '[override]\nbcast = "%s"\n' "$algorithm" >"$work/$algorithm.toml"
  "$collsel" export --format ompi-rules --config "$work/$algorithm.toml" --collective bcast \
    -o "$work/$algorithm.rules" 2>"$work/$algorithm.notes" || fail "export of $algorithm failed"
  got=$(pairs "$algorithm" --mca coll_tuned_use_dynamic_rules 1 \
          --mca coll_tuned_dynamic_rules_filename "$work/$algorithm.rules")
  [[ $got == "$expected" ]] || fail "$algorithm exported: Open MPI's messages went $got, expected $expected"
  [[ $got != "$native" ]] || fail "$algorithm: the fixed rules give the same pattern ($native)"
  echo "ok $algorithm: $got(fixed rules: $native)"
done
