#!/bin/bash
# Live-tab screenshot on the H200 test machine (issue 17 item 6), for the coordinator.
# Build here:  cargo build --release  (default features: gui + cuda)
# Copy:        mkdir -p /work/main/.dev && cp target/release/kraftwerk /work/main/.dev/
# Run on the device (carry .dev):  bash scripts/device-live-tab.sh
# Needs Xvfb and an X screenshot tool on the device (xwd from x11-apps, or ImageMagick `import`).
set -u
OUT=${OUT:-/tmp/out}
K=${K:-.dev/kraftwerk}
BUILD=${BUILD:-catalog/builds/h200-sxm-1gpu.rig.ron}
export DISPLAY=:99
Xvfb :99 -screen 0 1600x1000x24 >"$OUT/xvfb.log" 2>&1 &
XVFB=$!
sleep 2
# GLX windows under Xvfb reach the NVIDIA driver (DEVELOPERS.md); the app opens the build.
"$K" "$BUILD" >"$OUT/app.log" 2>&1 &
APP=$!
sleep 8
# Open the Live tab and start the probe by hand-off keys is not possible headless; the
# coordinator drives the window (xdotool) or uses the GUI test harness to select the tab.
if command -v xdotool >/dev/null; then
  xdotool search --name kraftwerk windowactivate --sync 2>/dev/null || true
fi
if command -v import >/dev/null; then
  import -window root "$OUT/live-tab.png"
elif command -v xwd >/dev/null; then
  xwd -root -silent >"$OUT/live-tab.xwd"
fi
kill "$APP" "$XVFB" 2>/dev/null
wait 2>/dev/null
ls -la "$OUT"
