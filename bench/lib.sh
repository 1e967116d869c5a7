# Shared by the emulated-cluster benchmark drivers (sourced, not run): their prerequisite checks
# and the tear-down every one of them must arm before bringing a cluster up.

# bench_require_built SCRIPT FILE...: every FILE is built (programs executable, libraries
# present), else one line naming it and exit 2.
bench_require_built() {
  local script=$1 f
  shift
  for f in "$@"; do
    if [[ $f == *.so ]]; then [[ -f $f ]]; else [[ -x $f ]]; fi ||
      { echo "$script: $f missing: build first (bash scripts/build.sh)" >&2; exit 2; }
  done
}

# bench_require_root SCRIPT: network namespaces need root.
bench_require_root() {
  [[ $(id -u) == 0 ]] || { echo "$1: needs root (emucluster)" >&2; exit 2; }
}

# bench_down_on_exit EMUCLUSTER CLUSTER: tear the cluster down however the script ends.
bench_down_on_exit() {
  # shellcheck disable=SC2064  # expand now: the variables may change before exit
  trap "\"$1\" --cluster $2 down >/dev/null 2>&1 || true" EXIT
}
