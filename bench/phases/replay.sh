#!/usr/bin/env bash
# Phase `replay` (HERE, no GPU): replays the out-of-core model (rt::ooc::predict,
# runtime/include/stepgen/plan/ooc/model.hpp as it is in this checkout) on the inputs the GPU runs logged:
# for every acoustic log under the folders given (1160^3 or 1750^3: the file name starts with the
# size), the plan it ran (chunks, k, trapezoid, band sharing) and the link and kernel figures it
# measured at start-up; prints the predicted time next to the measured one. OLD=REV also builds
# the model of git revision REV (its runtime headers) for comparison. The logs of runs before the
# kernels' figure was per computed cell (the model change of this script's commit) are
# converted: the figure is multiplied by the probe's planes over its computed planes; CONVERT=0
# for logs of later runs.
# Usage: bench/run.sh replay FOLDER...   (e.g. an unpacked bench/results/raw/*.tgz)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 - "$@" >"$work/in.txt" <<'PY'
import glob, os, re, sys
for folder in sys.argv[1:]:
    for f in sorted(glob.glob(os.path.join(folder, '**', '*.log'), recursive=True)):
        name = os.path.basename(f)
        if not re.match(r'(1160|1750)-', name):
            continue
        t = open(f, errors='replace').read()
        m = re.search(r'h2d ([\d.]+) GB/s, d2h ([\d.]+) GB/s, bidirectional ([\d.]+) GB/s; '
                      r'kernels ([\d.]+) ns per cell-step; device copies ([\d.]+)', t)
        meas = re.search(r'measured ([\d.]+)', t)
        if not m or not meas:
            continue
        chunks = re.search(r'(\d+) chunk\(s\)', t).group(1)
        k = re.search(r'(\d+) step\(s\) per pass', t).group(1)
        trap = 1 if 'trapezoid on' in t else 0
        bands = 1 if 'band sharing on' in t else 0
        print(os.path.relpath(f, folder).replace('.log', ''), name[:4], chunks, k, trap, bands,
              *m.groups(), meas.group(1))
PY
convert=()
[ "${CONVERT:-1}" = 1 ] && convert=(-DCONVERT_PER_PROBE_CELL)
g++ -std=c++17 -O1 "${convert[@]}" -I "$root/runtime/include" "$root/bench/cpu/ooc_model_replay.cpp" -o "$work/new"
echo "run                                 predicted measured  error  (model of this checkout)"
"$work/new" <"$work/in.txt"
if [ -n "${OLD:-}" ]; then
  mkdir -p "$work/old"
  git -C "$root" archive "$OLD" runtime/include | tar -x -C "$work/old"
  cp "$root/bench/cpu/ooc_model_replay.cpp" "$work/old/replay.cpp"
  # A commit from before the out-of-core runtime moved into namespace rt::ooc (no ooc/ folder)
  # has the old names (OocRequest, ooc_schedule, ...): the replay is written back to them.
  [ -d "$work/old/runtime/include/stepgen/ooc" ] ||
    sed -E -i 's/\booc::(Request|Schedule|Link)\b/Ooc\1/g; s/\booc::(schedule|probe_planes|computed_planes|predict)\b/ooc_\1/g' "$work/old/replay.cpp"
  g++ -std=c++17 -O1 -I "$work/old/runtime/include" "$work/old/replay.cpp" -o "$work/old.x"
  echo "== the model of $OLD (the logged kernels' figure as it is)"
  "$work/old.x" <"$work/in.txt"
fi
