#!/bin/bash
# Screenshot of the Live tab on a GPU machine with no display (docs/screenshots/h200-live-*.png).
# Needs, under .gl/ (git-ignored): kraftwerk.xz (release binary, xz), x.tar.xz (Debian xvfb, x11-xkb-utils,
# xkb-data, x11-apps for xwd, libglvnd), xdo.tar.xz (xdotool), mesa.tar.xz (Ubuntu 24.04 libgl1-mesa-dri,
# libegl-mesa0, libglapi-mesa, libgbm1 and their X/DRM libraries; swrast_dri.so only). Run from the
# repository root with $OUT set to an output folder; converts nothing (xwd files, gzipped).
# Live tab on the H200 under Xvfb: unpack Xvfb/xdotool/Mesa into /tmp/x, start the app on the
# test machine's build with wgpu's GL backend on Mesa's EGL (llvmpipe draws the window, CUDA and
# NVML use the real GPU), switch to the Live tab (Ctrl+9), run the probe (F5), validate (F6),
# and grab the screen with xwd at each step.
set -u
X=/tmp/x; mkdir -p $X
for t in x xdo mesa; do tar -xJf .gl/$t.tar.xz -C $X; done
# Prefer the machine's own copy of every general library; keep only what it lacks.
for d in $X/usr/lib/x86_64-linux-gnu $X/lib/x86_64-linux-gnu; do
  [ -d $d ] || continue
  for f in $d/lib*.so.*; do
    n=$(basename $f); s=${n%%.so.*}.so.${n#*.so.}; s=$(echo $s | sed -E 's/^(.*\.so\.[0-9]+).*/\1/')
    case $n in libEGL_mesa*|libglapi*|libgbm*|libLLVM*) continue;; esac
    ldconfig -p | grep -q " $s " && rm -f $f
  done
done
echo "kept: $(ls $X/usr/lib/x86_64-linux-gnu $X/lib/x86_64-linux-gnu 2>/dev/null | tr '\n' ' ')" > $OUT/libs.txt
xz -dc .gl/kraftwerk.xz > /tmp/kraftwerk; chmod +x /tmp/kraftwerk
export LD_LIBRARY_PATH=$X/usr/lib/x86_64-linux-gnu:$X/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
[ -e /usr/bin/xkbcomp ] || ln -s $X/usr/bin/xkbcomp /usr/bin/xkbcomp
mkdir -p /usr/share/X11; [ -e /usr/share/X11/xkb ] || ln -s $X/usr/share/X11/xkb /usr/share/X11/xkb
export WGPU_BACKEND=gl EGL_PLATFORM=x11 LIBGL_ALWAYS_SOFTWARE=1
export __EGL_VENDOR_LIBRARY_FILENAMES=$X/usr/share/glvnd/egl_vendor.d/50_mesa.json
export LIBGL_DRIVERS_PATH=$X/usr/lib/x86_64-linux-gnu/dri
$X/usr/bin/Xvfb :99 -screen 0 ${SIZE:-1920x1080}x24 -nolisten tcp > $OUT/xvfb.log 2>&1 &
sleep 3
export DISPLAY=:99 XDG_CONFIG_HOME=/tmp/cfg RUST_LOG=warn
shot() { $X/usr/bin/xwd -root -silent | gzip -1 > $OUT/$1.xwd.gz; }
/tmp/kraftwerk catalog/builds/h200-sxm-1gpu.rig.ron > $OUT/app.log 2>&1 &
APP=$!
sleep ${WAIT:-15}
XDO=$X/usr/bin/xdotool
$XDO mousemove 600 400; W=$($XDO search --name Kraftwerk | head -1); echo "window: $W" >> $OUT/app.log
[ -n "$W" ] && $XDO windowfocus --sync $W 2>>$OUT/app.log
shot a-build
$XDO key ctrl+9; sleep 4; shot b-live
$XDO key F5; sleep ${PROBE_MID:-8}; shot c-probe
sleep ${PROBE_END:-45}; shot d-probed
$XDO key F6; sleep ${VAL_WAIT:-30}; shot e-validated
$XDO mousemove 1100 600
for i in 1 2 3 4 5 6; do $XDO click --repeat 5 --delay 60 5; sleep 2; shot f-scroll-$i; done
kill $APP; sleep 1; nvidia-smi --query-gpu=memory.used --format=csv >> $OUT/app.log
ls -la $OUT
