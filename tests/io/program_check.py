"""Checks of a generated program's snapshot series (tests/io/program_test.sh).

  program_check.py same H5 STEP ARRAY RAW      dataset /step_STEP/ARRAY equals the raw file's bytes
  program_check.py steps H5 S1,S2,...          the series holds exactly these steps, each dataset
                                               with its attributes, and its XDMF lists them
  program_check.py series A.h5 B.h5 S1,S2,...  the two series' datasets at these steps are equal
  program_check.py other_spec IN.ckpt OUT.ckpt  IN with another spec hash, its header's CRC right
                                               (a checkpoint of another spec, no rebuild needed)
  program_check.py trace H5 CSV ARRAY EVERY    the HDF5 trace (datasets traces, steps, points;
                                               attributes array, every, dims) holds what the
                                               CSV trace of the same run holds, bit for bit
"""
import os
import sys
import xml.etree.ElementTree as ET

import h5py
import numpy as np


def fail(message):
    print("FAIL: " + message)
    sys.exit(1)


def group(step):
    return "step_%06d" % int(step)


def same(h5, step, array, raw):
    with h5py.File(h5, "r") as f:
        d = f[group(step)][array]
        got = d[()]
        want = np.fromfile(raw, dtype=got.dtype.newbyteorder("<")).reshape(got.shape)
        if got.tobytes() != want.astype(got.dtype).tobytes():
            bad = np.argwhere(got != want)
            fail("%s step %s array %s differs from %s (first at z,y,x = %s)" %
                 (h5, step, array, raw, bad[0].tolist() if len(bad) else "?"))
        if int(d.attrs["step"]) != int(step):
            fail("%s %s/%s: attribute step %s" % (h5, group(step), array, d.attrs["step"]))
        if not np.any(got):
            fail("%s step %s array %s is all zeros: too weak a test" % (h5, step, array))


def steps(h5, listed):
    want = [int(s) for s in listed.split(",")]
    with h5py.File(h5, "r") as f:
        have = sorted(int(g.attrs["step"]) for g in f.values())
        grid = [int(v) for v in f.attrs["grid"]]
        for name, g in f.items():
            for a, d in g.items():
                if list(d.shape) != grid[::-1]:
                    fail("%s %s/%s has shape %s, the grid %s" % (h5, name, a, d.shape, grid))
    if have != want:
        fail("%s holds steps %s, expected %s" % (h5, have, want))
    xdmf = os.path.splitext(h5)[0] + ".xdmf"
    root = ET.parse(xdmf).getroot()
    times = [int(float(t.get("Value"))) for t in root.iter("Time")]
    if times != want:
        fail("%s lists times %s, expected %s" % (xdmf, times, want))
    with h5py.File(h5, "r") as f:
        for item in root.iter("DataItem"):
            if item.get("Format") != "HDF":
                continue
            file_name, path = item.text.strip().split(":", 1)
            if file_name != os.path.basename(h5) or path not in f:
                fail("%s names %s, not in %s" % (xdmf, item.text, h5))


def series(a, b, listed):
    with h5py.File(a, "r") as fa, h5py.File(b, "r") as fb:
        for s in listed.split(","):
            for name, d in fa[group(s)].items():
                if d[()].tobytes() != fb[group(s)][name][()].tobytes():
                    fail("step %s array %s: %s and %s differ" % (s, name, a, b))


def crc64_xz(data):
    crc = 0xFFFFFFFFFFFFFFFF
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ (0xC96C5795D7870F42 if crc & 1 else 0)
    return crc ^ 0xFFFFFFFFFFFFFFFF


def other_spec(path, out):
    data = bytearray(open(path, "rb").read())
    length = int.from_bytes(data[12:16], "little")
    text = bytes(data[24:24 + length]).decode()
    lines = text.split("\n")
    assert lines[1].startswith("spec_hash ")
    lines[1] = "spec_hash " + "0" * (len(lines[1]) - len("spec_hash "))
    new = "\n".join(lines).encode()
    assert len(new) == length and crc64_xz(b"123456789") == 0x995DC9BBDF1939FA
    data[24:24 + length] = new
    data[16:24] = crc64_xz(new).to_bytes(8, "little")
    open(out, "wb").write(bytes(data))


def trace(h5, csv, array, every):
    lines = open(csv).read().splitlines()
    header = lines[0].split(",")
    want_points = [[int(v) for v in h[h.index("[") + 1:-1].split()] for h in header[1:]]
    rows = [line.split(",") for line in lines[1:]]
    want_steps = [int(r[0]) for r in rows]
    want = np.array([[np.float32(v) for v in r[1:]] for r in rows], dtype=np.float32)
    with h5py.File(h5, "r") as f:
        if f.attrs["array"].decode() != array or int(f.attrs["every"]) != int(every):
            fail("%s: attributes array %s every %s" % (h5, f.attrs["array"], f.attrs["every"]))
        if int(f.attrs["dims"]) != len(want_points[0]):
            fail("%s: attribute dims %s" % (h5, f.attrs["dims"]))
        steps_h5 = f["steps"][()].tolist()
        points = f["points"][()].tolist()
        got = f["traces"][()]
    if f"{got.dtype}" != "float64" or got.shape != (len(rows), len(want_points)):
        fail("%s: traces %s %s, expected float64 %s" % (h5, got.dtype, got.shape,
                                                        (len(rows), len(want_points))))
    if steps_h5 != want_steps:
        fail("%s: steps %s, the CSV's %s" % (h5, steps_h5, want_steps))
    if points != want_points:
        fail("%s: points %s, the CSV's %s" % (h5, points, want_points))
    # The float values, exactly (doubles of the array's floats).
    if not np.array_equal(got.astype(np.float32).astype(np.float64), got) or \
            got.astype(np.float32).tobytes() != want.tobytes():
        fail("%s and %s hold different values" % (h5, csv))
    if len(np.unique(got)) < 4:
        fail("%s: too few distinct values, too weak a test" % h5)


if __name__ == "__main__":
    command, args = sys.argv[1], sys.argv[2:]
    {"same": same, "steps": steps, "series": series, "other_spec": other_spec,
     "trace": trace}[command](*args)
