#!/usr/bin/env bash
# Prometheus' own checker on what `kraftwerk monitor --prometheus` serves, and on the documented
# scrape configuration.
#
#   scripts/promtool-check.sh [EXPOSITION.prom ...]
#
# The expositions default to target/tmp/prometheus/*.prom: the bodies `cargo test --test
# prometheus` scraped over loopback from the exporter serving recorded H200 snapshots (no GPU
# needed). Installs Debian's `prometheus` (which ships promtool) when promtool is missing, as
# root through apt-get; prints SKIP and exits 0 only when it cannot be installed. Then:
#
#   1. self-test: promtool must REJECT planted bad expositions (a camelCase label as the DCGM
#      exporter's `modelName`, a type in a metric name as its `DCGM_FI_DEV_PCIE_REPLAY_COUNTER`,
#      a metric family given twice, a HELP line with an invalid metric name) and a planted bad
#      scrape config, so a pass below means something;
#   2. `promtool check metrics < FILE` must exit 0 with no problem for every exposition;
#   3. `promtool check config docs/prometheus-scrape.yml` must pass.
#
# Exit 0 when all of it held, 1 otherwise. Every promtool call is bounded by `timeout`.
set -euo pipefail
cd "$(dirname "$0")/.."
T0=$(date +%s)
say() { echo "promtool-check: $*"; }
fail() {
  say "FAIL: $*"
  exit 1
}

if ! command -v promtool >/dev/null 2>&1; then
  if ! command -v apt-get >/dev/null 2>&1 || [ "$(id -u)" != 0 ]; then
    say "SKIP: promtool missing and cannot install Debian's prometheus (needs apt-get as root)"
    exit 0
  fi
  say "installing prometheus (for promtool)"
  if ! timeout 300 apt-get update -qq ||
    ! DEBIAN_FRONTEND=noninteractive timeout 600 apt-get install -y -qq --no-install-recommends prometheus >/dev/null; then
    say "SKIP: cannot install prometheus (apt-get failed)"
    exit 0
  fi
fi
say "$(promtool --version 2>&1 | head -1)"

if [ $# -gt 0 ]; then
  files=("$@")
else
  shopt -s nullglob
  files=(target/tmp/prometheus/*.prom)
  shopt -u nullglob
fi
[ ${#files[@]} -gt 0 ] || fail "no exposition to check (run \`cargo test --test prometheus\` first)"

T=$(mktemp -d /tmp/kraftwerk-promtool.XXXXXX)
trap 'rm -rf "$T"' EXIT

# 1. Planted faults: each must be rejected (non-zero exit).
good='# HELP DCGM_FI_DEV_GPU_TEMP GPU temperature, C.
# TYPE DCGM_FI_DEV_GPU_TEMP gauge
DCGM_FI_DEV_GPU_TEMP{gpu="0",UUID="GPU-0",device="nvidia0",model_name="NVIDIA H200",pci_bus_id="00000000:19:00.0",hostname="h"} 31'
printf '%s\n# EOF\n' "$good" >"$T/good.prom"
printf '%s\n# EOF\n' "${good/model_name/modelName}" >"$T/camel-case-label.prom"
printf '%s\n%s\n# EOF\n' "$good" "$good" >"$T/duplicate-family.prom"
printf '%s\n# EOF\n' "${good//DCGM_FI_DEV_GPU_TEMP/DCGM_FI_DEV_PCIE_REPLAY_COUNTER}" >"$T/type-in-name.prom"
printf '# HELP 9bad-name A metric name may not start with a digit.\n%s\n# EOF\n' "$good" >"$T/invalid-help-name.prom"
timeout 30 promtool check metrics <"$T/good.prom" || fail "self-test: the well-formed sample was rejected"
for planted in camel-case-label type-in-name duplicate-family invalid-help-name; do
  rc=0
  out=$(timeout 30 promtool check metrics <"$T/$planted.prom" 2>&1) || rc=$?
  [ "$rc" != 0 ] || fail "self-test: promtool accepted the planted $planted"
  say "self-test: planted $planted rejected (exit $rc): $(echo "$out" | head -1)"
done
sed 's/scrape_interval: 5s/scrape_interval: 5 parsecs/' docs/prometheus-scrape.yml >"$T/bad-scrape.yml"
rc=0
out=$(timeout 30 promtool check config "$T/bad-scrape.yml" 2>&1) || rc=$?
[ "$rc" != 0 ] || fail "self-test: promtool accepted a scrape interval of 5 parsecs"
say "self-test: planted bad scrape config rejected (exit $rc)"

# 2. The exporter's real output.
for f in "${files[@]}"; do
  rc=0
  out=$(timeout 30 promtool check metrics <"$f" 2>&1) || rc=$?
  [ "$rc" = 0 ] && [ -z "$out" ] || fail "promtool check metrics < $f: exit $rc: $out"
  say "promtool check metrics < $f: OK ($(grep -c '^# HELP' "$f") metric families, $(grep -vc '^#' "$f") samples)"
done

# 3. The documented scrape configuration.
timeout 30 promtool check config docs/prometheus-scrape.yml || fail "promtool check config docs/prometheus-scrape.yml"
say "PASS (took $(($(date +%s) - T0)) s)"
