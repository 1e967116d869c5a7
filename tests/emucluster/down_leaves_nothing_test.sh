#!/bin/bash
# emucluster.down_leaves_nothing: `emucluster down` removes every namespace, link, qdisc, hosts
# entry and state file that `up` made: after a clean run, and after a job killed mid-run with the
# emucluster process itself killed (the crash case). Compares the machine before and after.
#
#   down_leaves_nothing_test.sh --emucluster PATH --program coll_check [--mpiexec PATH]
# Exit: 0 pass, 1 fail, 77 skipped (not root, no iproute2, or no network namespaces here).
set -uo pipefail
SKIP=77
emu="" program="" mpiexec=""
while [[ $# -gt 0 ]]; do
  case $1 in
    --emucluster) emu=$2; shift 2 ;;
    --program) program=$2; shift 2 ;;
    --mpiexec) mpiexec=$2; shift 2 ;;
    *) echo "down_leaves_nothing: unknown argument $1" >&2; exit 2 ;;
  esac
done
skip() { echo "SKIPPED: $*"; exit "$SKIP"; }
fail() { echo "FAILED: $*"; exit 1; }
[[ $(id -u) == 0 ]] || skip "needs root (network namespaces, tc)"
command -v ip >/dev/null && command -v tc >/dev/null || skip "needs iproute2 (ip, tc)"

cluster="dln$$"
emu_cmd=(timeout 30 "$emu" --cluster "$cluster")
state_root=${EMUCLUSTER_STATE_ROOT:-/run/collsel-emucluster}
trap '"${emu_cmd[@]}" down >/dev/null 2>&1' EXIT

# Everything up/down could touch, seen from the root namespace, restricted to this cluster's
# names (other clusters may come and go meanwhile) plus the root namespace's own links and qdiscs.
snapshot() {
  ip netns list | grep "^cs-$cluster-" || true
  ip -o link show | awk -F': ' '{print $2}' | sed 's/@.*//' | sort
  tc qdisc show | sort
  grep "cluster=$cluster\$" /etc/hosts || true
  ls -A "$state_root/$cluster" 2>/dev/null || true
  pgrep -af "cs-$cluster-" || true
}

snapshot >/tmp/dln-before.$$
"${emu_cmd[@]}" up 3 --profile gige >/dev/null 2>/tmp/dln-err.$$
rc=$?
[[ $rc == 77 ]] && skip "emucluster cannot run here: $(tail -1 /tmp/dln-err.$$)"
[[ $rc == 0 ]] || fail "up exited $rc: $(cat /tmp/dln-err.$$)"
[[ $(ip netns list | grep -c "^cs-$cluster-") == 4 ]] || fail "up did not make 3 hosts + 1 switch"
grep -q "cluster=$cluster\$" /etc/hosts || fail "up wrote no /etc/hosts lines"
"${emu_cmd[@]}" down >/dev/null || fail "down (clean case) failed"
snapshot >/tmp/dln-after.$$
diff /tmp/dln-before.$$ /tmp/dln-after.$$ || fail "clean up + down left the differences above"

# Crash case: a job running, then the emucluster process that launched it killed with SIGKILL,
# so nothing of its own clean-up ran; `down` alone must still remove everything.
"${emu_cmd[@]}" up 3 --profile fast-ethernet >/dev/null 2>&1 || fail "second up failed"
margs=(--timeout 25)
[[ -n $mpiexec ]] && margs+=(--mpiexec "$mpiexec")
"$emu" --cluster "$cluster" mpiexec "${margs[@]}" -- "$program" 100000 >/dev/null 2>&1 &
job=$!
running=""
for _ in $(seq 40); do
  running=$(ip netns pids "cs-$cluster-h2" 2>/dev/null)
  [[ -n $running ]] && break
  sleep 0.25
done
[[ -n $running ]] || fail "the job never started on cs-$cluster-h2"
sleep 1
kill -KILL "$job" 2>/dev/null
pkill -KILL -f "emucluster --cluster $cluster mpiexec" 2>/dev/null
"${emu_cmd[@]}" down >/dev/null || fail "down (after the crash) failed"
sleep 1
snapshot >/tmp/dln-after.$$
diff /tmp/dln-before.$$ /tmp/dln-after.$$ || fail "down after a crash left the differences above"
rm -f /tmp/dln-before.$$ /tmp/dln-after.$$ /tmp/dln-err.$$
echo "emucluster.down_leaves_nothing: passed"
