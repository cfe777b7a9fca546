#!/usr/bin/env python3
"""Reads back snapshot series with h5py (tests/io/snapshot_write.cpp and snapshot_mpi.cpp wrote
them) and checks them against the bytes that were written, and their XDMF files against the HDF5
files.

  check_snapshots.py DIR                 every dataset of DIR/manifest.txt equals its raw bytes,
                                         with its attributes; every DIR/*.xdmf is well-formed
                                         (xmllint --noout) and describes its HDF5 file exactly
  check_snapshots.py --same A.h5 B.h5    A and B hold the same datasets with the same bytes
"""
import os
import subprocess
import sys
import xml.etree.ElementTree as ET

import h5py
import numpy as np

TYPES = {"float": "<f4", "double": "<f8", "int": "<i4", "uint": "<u4", "long": "<i8",
         "ulong": "<u8", "short": "<i2", "ushort": "<u2", "char": "<i1", "uchar": "<u1"}
# XDMF NumberType and Precision of each numpy type.
XDMF = {"f4": ("Float", 4), "f8": ("Float", 8), "i4": ("Int", 4), "u4": ("UInt", 4),
        "i8": ("Int", 8), "u8": ("UInt", 8), "i2": ("Int", 2), "u2": ("UInt", 2),
        "i1": ("Char", 1), "u1": ("UChar", 1)}

failures = []


def fail(message):
    failures.append(message)
    print("FAIL: " + message)


def check_manifest(folder):
    count = 0
    with open(os.path.join(folder, "manifest.txt")) as manifest:
        for line in manifest:
            name, step, array, type_name, raw = line.split()
            step = int(step)
            path = "/step_%06d/%s" % (step, array)
            with h5py.File(os.path.join(folder, name), "r") as f:
                if path not in f:
                    fail("%s: no dataset %s" % (name, path))
                    continue
                d = f[path]
                want = np.fromfile(os.path.join(folder, raw), dtype=TYPES[type_name])
                grid = [int(v) for v in f.attrs["grid"]]  # x first
                if list(d.shape) != grid[::-1]:
                    fail("%s%s: shape %s, grid %s" % (name, path, d.shape, grid))
                if d.dtype != np.dtype(TYPES[type_name]):
                    fail("%s%s: type %s, written %s" % (name, path, d.dtype, type_name))
                if d[()].tobytes() != want.tobytes():
                    fail("%s%s: the values differ from the bytes written" % (name, path))
                if int(d.attrs["step"]) != step or int(f[path].parent.attrs["step"]) != step:
                    fail("%s%s: step attribute %s" % (name, path, d.attrs["step"]))
                if [int(v) for v in d.attrs["grid"]] != grid:
                    fail("%s%s: grid attribute %s" % (name, path, d.attrs["grid"]))
                if d.attrs["element_type"].decode() != type_name:
                    fail("%s%s: element_type %s" % (name, path, d.attrs["element_type"]))
                if f.attrs["format"].decode() != "stepgen snapshots 1":
                    fail("%s: format attribute %s" % (name, f.attrs["format"]))
            count += 1
    print("%d datasets equal the bytes written" % count)
    return count


def check_xdmf(xdmf):
    folder = os.path.dirname(xdmf)
    lint = subprocess.run(["xmllint", "--noout", xdmf], capture_output=True, text=True)
    if lint.returncode != 0:
        fail("%s is not well-formed XML: %s" % (xdmf, lint.stderr))
        return
    root = ET.parse(xdmf).getroot()
    if root.tag != "Xdmf" or root.get("Version") not in ("2.0", "3.0"):
        fail("%s: root %s version %s" % (xdmf, root.tag, root.get("Version")))
    series = root.findall("./Domain/Grid")
    if len(series) != 1 or series[0].get("GridType") != "Collection" or \
            series[0].get("CollectionType") != "Temporal":
        fail("%s: no temporal collection under Domain" % xdmf)
        return
    listed = set()
    times = []
    h5_files = set()
    for grid in series[0].findall("Grid"):
        time = grid.find("Time")
        topology = grid.find("Topology")
        geometry = grid.find("Geometry")
        if time is None or topology is None or geometry is None:
            fail("%s: grid %s lacks Time, Topology or Geometry" % (xdmf, grid.get("Name")))
            continue
        times.append(float(time.get("Value")))
        dims = [int(v) for v in topology.get("Dimensions").split()]
        mesh = "%dDCoRectMesh" % len(dims)
        if topology.get("TopologyType") != mesh:
            fail("%s: topology %s for %d dimensions" % (xdmf, topology.get("TopologyType"), len(dims)))
        if geometry.get("GeometryType") != ("ORIGIN_DXDYDZ" if len(dims) == 3 else "ORIGIN_DXDY"):
            fail("%s: geometry %s" % (xdmf, geometry.get("GeometryType")))
        items = geometry.findall("DataItem")
        if len(items) != 2 or any(len(i.text.split()) != len(dims) for i in items):
            fail("%s: geometry needs an origin and a spacing of %d values" % (xdmf, len(dims)))
        for attribute in grid.findall("Attribute"):
            item = attribute.find("DataItem")
            if item.get("Format") != "HDF" or attribute.get("Center") != "Node":
                fail("%s: attribute %s is not nodal HDF data" % (xdmf, attribute.get("Name")))
                continue
            h5_name, path = item.text.strip().split(":", 1)
            h5_files.add(h5_name)
            with h5py.File(os.path.join(folder, h5_name), "r") as f:
                if path not in f:
                    fail("%s: DataItem points at %s:%s, which does not exist" % (xdmf, h5_name, path))
                    continue
                d = f[path]
                shape = [int(v) for v in item.get("Dimensions").split()]
                if list(d.shape) != shape or shape != dims:
                    fail("%s: %s has shape %s, the XDMF says %s (mesh %s)" % (xdmf, path, d.shape, shape, dims))
                number = XDMF[d.dtype.str[1:]]
                if (item.get("NumberType"), int(item.get("Precision"))) != number:
                    fail("%s: %s is %s, the XDMF says %s %s" % (xdmf, path, d.dtype, item.get("NumberType"),
                                                              item.get("Precision")))
                group = d.parent
                if float(time.get("Value")) != float(group.attrs["time"][0]):
                    fail("%s: time %s, the group %s says %s" % (xdmf, time.get("Value"), group.name,
                                                               group.attrs["time"]))
                for item_text, key in zip([i.text for i in items], ["origin", "spacing"]):
                    want = [float(v) for v in f.attrs[key]][::-1]  # XDMF: z y x
                    if [float(v) for v in item_text.split()] != want:
                        fail("%s: geometry %s is %s, the file's %s reversed is %s" %
                             (xdmf, key, item_text, key, want))
                if path.rsplit("/", 1)[1] != attribute.get("Name"):
                    fail("%s: attribute %s points at %s" % (xdmf, attribute.get("Name"), path))
                listed.add((h5_name, path))
    if times != sorted(times) or len(set(times)) != len(times):
        fail("%s: times %s are not increasing" % (xdmf, times))
    # Every dataset of the HDF5 file is in the series.
    for h5_name in h5_files:
        with h5py.File(os.path.join(folder, h5_name), "r") as f:
            every = []
            f.visititems(lambda n, o: every.append("/" + n) if isinstance(o, h5py.Dataset) else None)
            for path in every:
                if (h5_name, path) not in listed:
                    fail("%s: dataset %s:%s is not listed" % (xdmf, h5_name, path))
    print("%s: %d steps, %d datasets, all present with the dimensions and types it says" %
          (xdmf, len(times), len(listed)))
    return len(listed)


def check_same(a, b):
    with h5py.File(a, "r") as fa, h5py.File(b, "r") as fb:
        names = []
        fa.visititems(lambda n, o: names.append(n) if isinstance(o, h5py.Dataset) else None)
        other = []
        fb.visititems(lambda n, o: other.append(n) if isinstance(o, h5py.Dataset) else None)
        if sorted(names) != sorted(other) or not names:
            fail("%s holds %s, %s holds %s" % (a, sorted(names), b, sorted(other)))
        for n in names:
            if n in fb and (fa[n].dtype != fb[n].dtype or fa[n][()].tobytes() != fb[n][()].tobytes()):
                fail("%s and %s differ in %s" % (a, b, n))
        if not failures:
            print("%s and %s: %d datasets, the same bytes" % (a, b, len(names)))


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "--same":
        check_same(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 2:
        folder = sys.argv[1]
        if check_manifest(folder) == 0:
            fail("the manifest lists no dataset")
        xdmfs = sorted(f for f in os.listdir(folder) if f.endswith(".xdmf"))
        if not xdmfs:
            fail("no XDMF file in " + folder)
        for x in xdmfs:
            check_xdmf(os.path.join(folder, x))
    else:
        print(__doc__)
        return 2
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
