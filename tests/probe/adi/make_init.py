#!/usr/bin/env python3
"""Writes PolyBench's init_array of adi for an N x N grid (double, x = column j fastest):
u[i][j] = (i + N - j) / N. Usage: make_init.py N OUT.raw"""
import struct, sys
n = int(sys.argv[1])
vals = [(i + n - j) / n for i in range(n) for j in range(n)]
open(sys.argv[2], "wb").write(struct.pack("<%dd" % len(vals), *vals))
