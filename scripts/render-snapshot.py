#!/usr/bin/python3
"""Renders one snapshot of a generated program's HDF5 output (docs/io.md) as a PNG.

Usage: scripts/render-snapshot.py FILE.h5 ARRAY OUT.png [STEP]
  STEP: the step to show (default: the last in the file). A 3D array shows its middle z plane,
  a 2D array the whole grid. Needs h5py and matplotlib (Debian: python3-h5py, python3-matplotlib).
"""
import sys

import h5py
import matplotlib

matplotlib.use("Agg")  # no display needed
import matplotlib.pyplot as plt  # noqa: E402


def main():
    if len(sys.argv) not in (4, 5):
        sys.exit(__doc__)
    path, array, out = sys.argv[1:4]
    with h5py.File(path, "r") as f:
        steps = sorted(int(g.attrs["step"]) for g in f.values())
        step = int(sys.argv[4]) if len(sys.argv) == 5 else steps[-1]
        group = "step_%06d" % step
        if group not in f or array not in f[group]:
            sys.exit("%s has no %s/%s (steps: %s)" % (path, group, array, steps))
        data = f[group][array][()]  # [z, y, x]
    title = "%s, step %d" % (array, step)
    if data.ndim == 3:
        title += ", plane z = %d of %d" % (data.shape[0] // 2, data.shape[0])
        data = data[data.shape[0] // 2]
    fig, ax = plt.subplots(figsize=(6, 4.5), dpi=100)
    image = ax.imshow(data, origin="lower", cmap="RdBu_r", interpolation="nearest")
    ax.set_xlabel("x")
    ax.set_ylabel("y")
    ax.set_title("%s\n%s" % (path, title), fontsize=10)
    fig.colorbar(image, ax=ax)
    fig.tight_layout()
    fig.savefig(out)
    print("wrote %s (%s)" % (out, title))


if __name__ == "__main__":
    main()
