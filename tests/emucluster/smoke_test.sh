#!/bin/bash
# emucluster.smoke: up 4 hosts, run MPI_Bcast + MPI_Scatter across them, check the results, the
# processor names (one per host) and that the traffic crossed the shaped links (the tbf byte
# counters of every uplink and every switch port grew), then tear down. With --preload
# libcollsel.so, also check that collsel wrote complete logs (through the MPI_Finalize
# workaround's collsel_flush call).
#
#   smoke_test.sh --emucluster PATH --program coll_check [--mpiexec PATH] [--preload LIB] [--openmpi]
# With --openmpi the job is launched by Open MPI's mpiexec (emucluster mpiexec --openmpi; the
# program and the preloaded shim must then be Open MPI builds).
# Exit: 0 pass, 1 fail, 77 skipped (not root, no iproute2, or no network namespaces here).
set -uo pipefail
SKIP=77
emu="" program="" mpiexec="" preload="" openmpi=0
while [[ $# -gt 0 ]]; do
  case $1 in
    --emucluster) emu=$2; shift 2 ;;
    --program) program=$2; shift 2 ;;
    --mpiexec) mpiexec=$2; shift 2 ;;
    --preload) preload=$2; shift 2 ;;
    --openmpi) openmpi=1; shift ;;
    *) echo "smoke_test: unknown argument $1" >&2; exit 2 ;;
  esac
done
[[ -x $emu && -x $program ]] || { echo "smoke_test: need --emucluster and --program" >&2; exit 2; }

skip() { echo "SKIPPED: $*"; exit "$SKIP"; }
fail() { echo "FAILED: $*"; exit 1; }
[[ $(id -u) == 0 ]] || skip "needs root (network namespaces, tc)"
command -v ip >/dev/null && command -v tc >/dev/null || skip "needs iproute2 (ip, tc)"

hosts=4
cluster="smk$$"          # a cluster of our own: never touches anyone else's
emu=(timeout 30 "$emu" --cluster "$cluster")
work=$(mktemp -d /tmp/emucluster-smoke.XXXXXX)
cleanup() {
  "${emu[@]}" down >/dev/null 2>&1 || echo "smoke_test: WARNING: down failed for cluster $cluster"
  rm -rf "$work"
}
trap cleanup EXIT

start=$(date +%s)
"${emu[@]}" up "$hosts" --profile fast-ethernet >"$work/up.log" 2>&1
rc=$?
cat "$work/up.log"
[[ $rc == 77 ]] && skip "emucluster cannot run here: $(tail -1 "$work/up.log")"
[[ $rc == 0 ]] || fail "emucluster up exited $rc"

counters() { "${emu[@]}" status --counters; }
counters >"$work/before" || fail "status --counters failed"
[[ $(wc -l <"$work/before") == $((2 * hosts)) ]] || fail "status --counters: expected $((2 * hosts)) lines, got: $(cat "$work/before")"

margs=(--timeout 40)
[[ -n $mpiexec ]] && margs+=(--mpiexec "$mpiexec")
[[ -n $preload ]] && margs+=(--preload "$preload")
((openmpi)) && margs+=(--openmpi)
mkdir -p "$work/logs"
(cd "$work" && COLLSEL_LOG_DIR="$work/logs" "${emu[@]}" mpiexec "${margs[@]}" -- "$program" 2 "$hosts") \
  >"$work/job.out" 2>"$work/job.err"
rc=$?
cat "$work/job.out"
[[ $rc == 0 ]] || { cat "$work/job.err"; fail "MPI job exited $rc"; }
grep -q "^coll_check: OK ranks=$hosts hosts=$hosts " "$work/job.out" ||
  { cat "$work/job.err"; fail "no 'coll_check: OK ranks=$hosts hosts=$hosts' line"; }

counters >"$work/after" || fail "status --counters failed"
# Every link end carried the job: each host sent and received well over 64 KiB (the job moves
# 2 x 256 KiB of Scatter data and the Bcasts through each of them).
paste "$work/before" "$work/after" | awk -v min=65536 '
  { grown = $9 - $3; printf "  %-16s %-4s +%d bytes, %d drops\n", $1, $2, grown, $11;
    if (grown < min) bad = bad " " $1 "/" $2 }
  END { if (bad != "") { print "too little traffic on:" bad; exit 1 } }' ||
  fail "MPI traffic did not cross the shaped links"

if [[ -n $preload ]]; then
  files=$(find "$work/logs" -name 'rank-*.jsonl' | wc -l)
  [[ $files == "$hosts" ]] || fail "collsel wrote $files rank logs, expected $hosts"
  for f in "$work"/logs/*/rank-*.jsonl; do
    tail -n 1 "$f" | grep -qE '"type": ?"end"' || fail "$f does not end with an 'end' record"
  done
  echo "  collsel logs complete: $files ranks"
fi

"${emu[@]}" down >/dev/null || fail "emucluster down failed"
left=$(ip netns list | grep -c "^cs-$cluster-" || true)
[[ $left == 0 ]] || fail "$left namespaces left after down"
grep -q "cluster=$cluster\$" /etc/hosts && fail "/etc/hosts lines left after down"
echo "emucluster.smoke: passed in $(($(date +%s) - start)) s"
exit 0
