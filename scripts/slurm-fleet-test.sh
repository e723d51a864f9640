#!/usr/bin/env bash
# A real Slurm fleet run on this one machine: Debian's slurm-wlm and munge, one localhost node,
# `srun -n 4` validating a recorded H200 session on four tasks, `kraftwerk fleet` merging them.
#
#   scripts/slurm-fleet-test.sh [KRAFTWERK_BINARY]      (default: $KRAFTWERK_BIN, else
#                                                         target/debug/kraftwerk)
#
# Runs as root (CI does): installs slurm-wlm and munge when missing (apt-get; prints SKIP and
# exits 0 only when they cannot be installed), writes slurm.conf and cgroup.conf for a node named
# after `hostname -s` into a temporary folder, starts munged, slurmctld and slurmd from there
# (no systemd), waits at most 60 s for the node to be idle, then:
#
#   1. srun -n 4: every task runs `kraftwerk validate BUILD --from RECORDING --format json`
#      on the real H200 recording (tests/fixtures/h200-validate-record.kwrec.json, graded pass
#      against catalog/builds/h200-sxm-1gpu.rig.ron) into OUT/node-$SLURM_PROCID.json;
#      `kraftwerk fleet OUT --format json` must count 4 nodes, 0 failed, 0 outliers, pass, exit 0.
#   2. The same with task 3 given the planted uncorrected-ECC recording
#      (tests/fixtures/faults/ecc-uncorrectable.kwrec.json): fleet must count 4 nodes, fail
#      exactly node-3 (on its ecc check) and exit 1, so the pass above is seen to fail on a fault.
#
# Every step is bounded by `timeout`; every daemon is stopped on exit (trap). Exit 0 when all of
# it held, 1 on any failure. Environment: KRAFTWERK_SLURM_PORT (slurmctld's port, default
# 6817; slurmd's is one more), KRAFTWERK_SLURM_KEEP=1 keeps the temporary folder (logs).
set -Eeuo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
BIN=${1:-${KRAFTWERK_BIN:-target/debug/kraftwerk}}
case "$BIN" in /*) ;; *) BIN="$ROOT/$BIN" ;; esac
BUILD="$ROOT/catalog/builds/h200-sxm-1gpu.rig.ron"
GOOD="$ROOT/tests/fixtures/h200-validate-record.kwrec.json"
BAD="$ROOT/tests/fixtures/faults/ecc-uncorrectable.kwrec.json"
TASKS=4
PORT=${KRAFTWERK_SLURM_PORT:-6817}
T0=$(date +%s)

say() { echo "slurm-fleet-test: $*"; }
trap 'say "FAIL: line $LINENO: $BASH_COMMAND"' ERR
fail() {
  say "FAIL: $*"
  exit 1
}

[ -x "$BIN" ] || fail "no kraftwerk binary at $BIN (cargo build first, or pass its path)"
[ "$(id -u)" = 0 ] || fail "must run as root (starts munged, slurmctld and slurmd)"

# 1. Packages: install only what is missing; SKIP only when they cannot be installed at all.
need=""
for p in slurm-wlm munge; do
  dpkg -s "$p" >/dev/null 2>&1 || need="$need $p"
done
if [ -n "$need" ]; then
  if ! command -v apt-get >/dev/null 2>&1; then
    say "SKIP: no apt-get to install$need"
    exit 0
  fi
  say "installing$need"
  if ! timeout 300 apt-get update -qq ||
    ! DEBIAN_FRONTEND=noninteractive timeout 600 apt-get install -y -qq --no-install-recommends $need >/dev/null; then
    say "SKIP: cannot install$need (apt-get failed)"
    exit 0
  fi
fi
for c in munged mungekey slurmctld slurmd srun sinfo; do
  command -v "$c" >/dev/null 2>&1 || fail "$c missing after installing slurm-wlm and munge"
done

# 2. Configuration, keys and state in one temporary folder.
T=$(mktemp -d /tmp/kraftwerk-slurm.XXXXXX)
chmod 711 "$T"
mkdir -p "$T/munge" "$T/ctld" "$T/slurmd" "$T/out" "$T/out-fault"
NODE=$(hostname -s)
CPUS=$(nproc)

cleanup() {
  local rc=$?
  set +e
  for d in slurmd slurmctld munged; do
    local f="$T/$d.pid"
    [ "$d" = munged ] && f="$T/munge/munged.pid"
    if [ -s "$f" ]; then
      local pid
      pid=$(cat "$f")
      kill "$pid" 2>/dev/null
      for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
      kill -0 "$pid" 2>/dev/null && kill -9 "$pid" 2>/dev/null
    fi
  done
  if [ "$rc" != 0 ]; then
    for l in "$T/slurmctld.log" "$T/slurmd.log" "$T/munge/munged.log"; do
      [ -f "$l" ] && { echo "--- last lines of $l"; tail -20 "$l"; }
    done
  fi
  if [ "${KRAFTWERK_SLURM_KEEP:-0}" = 1 ]; then say "kept $T"; else rm -rf "$T"; fi
  say "took $(($(date +%s) - T0)) s"
}
trap cleanup EXIT
trap 'exit 143' TERM INT # a timeout or Ctrl-C still stops the daemons (through the EXIT trap)

# Slurm 22.05 (Debian 12) reads slurm.conf from $SLURM_CONF and cgroup.conf from the same folder;
# nothing here uses cgroups (proctrack/linuxproc, task/none); cgroup.conf turns every constraint
# off in case a plugin reads it.
export SLURM_CONF="$T/slurm.conf"
cat >"$SLURM_CONF" <<EOF
ClusterName=kraftwerk-ci
SlurmctldHost=localhost
SlurmctldPort=$PORT
SlurmdPort=$((PORT + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$T/munge/munge.sock
CredType=cred/munge
StateSaveLocation=$T/ctld
SlurmdSpoolDir=$T/slurmd
SlurmctldPidFile=$T/slurmctld.pid
SlurmdPidFile=$T/slurmd.pid
SlurmctldLogFile=$T/slurmctld.log
SlurmdLogFile=$T/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/backfill
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MpiDefault=none
ReturnToService=2
NodeName=$NODE NodeAddr=127.0.0.1 CPUs=$CPUS State=UNKNOWN
PartitionName=ci Nodes=$NODE Default=YES MaxTime=10 State=UP
EOF
cat >"$T/cgroup.conf" <<EOF
CgroupAutomount=no
ConstrainCores=no
ConstrainDevices=no
ConstrainRAMSpace=no
EOF

# 3. Daemons: munged on its own socket and key, then slurmctld and slurmd (they fork; pid files).
timeout 10 mungekey --create --keyfile="$T/munge/munge.key" || fail "mungekey"
timeout 10 munged --force --key-file="$T/munge/munge.key" --socket="$T/munge/munge.sock" \
  --pid-file="$T/munge/munged.pid" --log-file="$T/munge/munged.log" --seed-file="$T/munge/munged.seed" ||
  fail "munged did not start"
timeout 10 bash -c "munge -n -S '$T/munge/munge.sock' | unmunge -S '$T/munge/munge.sock' >/dev/null" ||
  fail "munge credential round trip"
timeout 30 slurmctld -f "$SLURM_CONF" -c || fail "slurmctld did not start"
timeout 30 slurmd -f "$SLURM_CONF" -N "$NODE" || fail "slurmd did not start"
say "waiting (at most 60 s) for node $NODE ($CPUS CPUs) to be idle"
timeout 60 bash -c "until [ \"\$(sinfo -h -n '$NODE' -o %t 2>/dev/null)\" = idle ]; do sleep 1; done" ||
  fail "node $NODE not idle after 60 s: $(sinfo -h -N -o '%N %t %E' 2>&1)"
sinfo -N -o '%N %P %t %c'

# 4. The fleet: one report per task. --overcommit: 4 tasks on fewer CPUs (CI has 2).
export KW_BIN="$BIN" KW_BUILD="$BUILD" KW_GOOD="$GOOD" KW_BAD="$BAD"
run_fleet() { # $1: output folder, $2: the recording task 3 validates
  KW_OUT=$1 KW_REC3=$2 timeout 120 srun --overcommit -N 1 -n "$TASKS" -t 2 -J kraftwerk-fleet --chdir "$T" \
    bash -c '
      rec=$KW_GOOD; [ "$SLURM_PROCID" = 3 ] && rec=$KW_REC3
      "$KW_BIN" validate "$KW_BUILD" --from "$rec" --format json > "$KW_OUT/node-$SLURM_PROCID.json" || true
      echo "task $SLURM_PROCID of $SLURM_NTASKS on $SLURMD_NODENAME (job $SLURM_JOB_ID): $(basename "$rec")"'
}
# $1: fleet JSON, $2: expected verdict, $3: expected failed report files (space-separated).
# Pretty JSON: top-level keys are indented 2 spaces; in "nodes", each node's keys 6, "file" (its
# report's name) first after "node", then "overall".
check_fleet() {
  local json=$1 verdict=$2 want_failed=$3 nodes top failed
  nodes=$(grep -c '^      "file": ' "$json" || true)
  top=$(grep '^  "overall": ' "$json" | sed 's/.*: "\(.*\)".*/\1/' || true)
  failed=$(grep -A1 '^      "file": ' "$json" | paste - - - 2>/dev/null | grep '"overall": "fail"' |
    sed 's/.*"file": "\([^"]*\)".*/\1/' | tr '\n' ' ' | sed 's/ $//' || true)
  say "fleet counted $nodes node(s), overall $top, failed: ${failed:-none}"
  [ "$nodes" = "$TASKS" ] || fail "fleet counted $nodes node(s), expected $TASKS"
  [ "$top" = "$verdict" ] || fail "fleet verdict $top, expected $verdict"
  [ "$failed" = "$want_failed" ] || fail "failed reports: '${failed}', expected '$want_failed'"
}
# Prints the text report's header and node table (captured first: no pipe to cut it short).
show_fleet() {
  timeout 30 "$BIN" fleet "$1" >"$T/fleet.txt" || true
  sed -n '1,/^$/p;/^  node /,/^$/p' "$T/fleet.txt" | sed '/^$/d'
}

say "srun -n $TASKS: validate the H200 recording on every task"
run_fleet "$T/out" "$GOOD" || fail "srun"
ls "$T/out"
[ "$(ls "$T/out" | wc -l)" = "$TASKS" ] || fail "expected $TASKS reports"
rc=0
timeout 30 "$BIN" fleet "$T/out" --format json >"$T/fleet.json" || rc=$?
[ "$rc" = 0 ] || fail "kraftwerk fleet exited $rc on a clean fleet"
check_fleet "$T/fleet.json" pass ""
show_fleet "$T/out"

say "srun -n $TASKS: task 3 validates the planted uncorrected-ECC recording"
run_fleet "$T/out-fault" "$BAD" || fail "srun"
rc=0
timeout 30 "$BIN" fleet "$T/out-fault" --format json >"$T/fleet-fault.json" || rc=$?
[ "$rc" = 1 ] || fail "kraftwerk fleet exited $rc with a failed node, expected 1"
check_fleet "$T/fleet-fault.json" fail node-3
show_fleet "$T/out-fault"
grep -q '"check": "ecc"' "$T/out-fault/node-3.json" || fail "node-3's report has no ecc check"
say "PASS: $TASKS Slurm tasks validated, fleet merged them (pass), a planted fault failed it"
