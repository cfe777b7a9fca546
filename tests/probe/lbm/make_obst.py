#!/usr/bin/env python3
"""Writes obst.raw, the solid mask of tests/probe/lbm (int32, 64x32, x fastest): the channel's
walls (y = 0 and y = 31) and a cylinder of radius 5 around (16, 16); solid where != 0."""
import struct, sys
NX, NY = 64, 32
cells = []
for y in range(NY):
    for x in range(NX):
        solid = y == 0 or y == NY - 1 or (x - 16) ** 2 + (y - 16) ** 2 <= 25
        cells.append(1 if solid else 0)
open(sys.argv[1] if len(sys.argv) > 1 else "obst.raw", "wb").write(struct.pack("<%di" % len(cells), *cells))
