#!/usr/bin/env python3
"""Writes PolyBench's init_array of seidel-2d for an N x N grid (double, x = column fastest):
A[i][j] = (i * (j + 2) + 2) / N. Usage: make_init.py N OUT.raw"""
import struct, sys
n = int(sys.argv[1])
vals = [(i * (j + 2) + 2) / n for i in range(n) for j in range(n)]
open(sys.argv[2], "wb").write(struct.pack("<%dd" % len(vals), *vals))
