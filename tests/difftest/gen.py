#!/usr/bin/env python3
"""Writes one random, valid stencil program for the differential tester (scripts/difftest.sh).

    gen.py SEED OUTDIR [--format xml|yaml]

OUTDIR gets:
  prog.xml or prog.yaml   the spec (kernels in prog.cl, cuda-source prog.cu)
  prog.cl, prog.cu        the same kernels in OpenCL C and CUDA, the same arithmetic and guards
  saves.txt               the arrays every run saves (--save NAME=...), one per line
  modes.txt               the modes to run, one per line: LABEL<TAB>ENV<TAB>ARGS (ENV: NAME=V,...
                          or -); LABEL starts with `mpiN-` for an MPI run on N ranks (of
                          K devices each with --devices K)
  summary.txt             one line describing the program

Everything is a function of SEED (random.Random(SEED)), so a seed reproduces its program and its
modes exactly. The programs obey docs/spec.md's contract for kernels written for ONE device:
index from 0 in the buffer, extents from scalar arguments, guard `x >= nx`, skip a rim at least
as wide as the kernel's halo. A rim WIDER than the halo is drawn where every mode can still
compute every cell one device computes (see rim_bound below); --wide-rims drops that bound.
Arithmetic is exactly reproducible: + - * and division by constants, no transcendental
functions, FP_CONTRACT OFF (CUDA: --fmad=false, the generated CMake's default), bounded values
(weights whose magnitudes sum to at most 1, inputs in [0, 1)), integers in unsigned arithmetic
reduced modulo 1021.

features.py then draws, each from a stream of its own, line recurrences, step-dependent writers,
masks and <boundary> frames (--features or DIFFTEST_FEATURES: their probabilities); a seed that
draws none is the program it was before them.
"""
import argparse
import itertools
import os
import random
import sys

sys.dont_write_bytecode = True  # no __pycache__ of features.py in the source tree
import features  # noqa: E402

INT_TYPES = ["int", "uint", "long", "short", "uchar"]
# OpenCL C's names (the spec's) and CUDA's for the same element types
CUDA_TYPE = {"float": "float", "double": "double", "int": "int", "uint": "unsigned int",
             "long": "long long", "short": "short", "uchar": "unsigned char"}


def pick_type(rng):
    """float, double and int mostly; now and then the other widths (1, 2, 8-byte elements)."""
    return rng.choice(["float", "double", "int"] * 3 + INT_TYPES[1:])
DIMS = "xyz"


class Arg:
    """An array argument: name, access, halo (lo, hi per dim), points read (offsets), form."""

    def __init__(self, array, access, lo=None, hi=None, points=None, form="none"):
        self.array, self.access = array, access
        self.lo, self.hi = lo, hi
        self.points = points or []  # offsets the kernel reads besides the centre
        self.form = form  # "none" (centre only), "points", "widths"


class Kernel:
    def __init__(self, name):
        self.name = name
        self.args = []  # Arg
        self.writes = []  # array names written
        self.rim_lo = self.rim_hi = None
        self.glob_lo = self.glob_hi = None  # global boundary rims (None: no global guard)
        self.use_step = False
        self.local = None  # work-group sizes or None
        self.auto = None  # <local size="auto"/>: its candidate shapes (or None)
        self.body = {}  # output array -> list of terms
        self.scan = self.mask = self.stepw = None  # features.py: a line recurrence, a mask, a step-dependent writer


def odd(rng, lo, hi):
    return rng.choice([v for v in range(lo, hi + 1) if v % 2 == 1])


def fmt_float(v, typ):
    s = repr(round(v, 6))
    if "." not in s and "e" not in s:
        s += ".0"
    return s + ("f" if typ == "float" else "")


def make_halo(rng, dims, radius):
    """A random halo: per dim widths below/above, and the points the kernel reads."""
    lo = [rng.randint(0, radius) for _ in range(dims)]
    hi = [rng.randint(0, radius) for _ in range(dims)]
    if sum(lo) + sum(hi) == 0:
        d = rng.randrange(dims)
        (lo if rng.random() < 0.5 else hi)[d] = rng.randint(1, radius)
    form = "widths" if rng.random() < 0.3 else "points"
    pts = set()
    for d in range(dims):  # the extreme points, so the widths are exactly what is read
        if lo[d]:
            pts.add(tuple(-lo[d] if e == d else 0 for e in range(dims)))
        if hi[d]:
            pts.add(tuple(hi[d] if e == d else 0 for e in range(dims)))
    for _ in range(rng.randint(0, 4)):  # diagonal and inner points
        pts.add(tuple(rng.randint(-lo[d], hi[d]) for d in range(dims)))
    if form == "widths" and dims > 1 and rng.random() < 0.5:  # a corner of the box
        pts.add(tuple(rng.choice([-lo[d], hi[d]]) for d in range(dims)))
    pts.discard(tuple([0] * dims))
    if not pts:
        d = next(d for d in range(dims) if lo[d] or hi[d])
        pts.add(tuple((-lo[d] if lo[d] else hi[d]) if e == d else 0 for e in range(dims)))
    if form == "points":  # the widths the points give
        lo = [max(0, -min(p[d] for p in pts)) for d in range(dims)]
        hi = [max(0, max(p[d] for p in pts)) for d in range(dims)]
    return lo, hi, sorted(pts), form


def generate(seed, wide_rims=False, feature_spec=None):
    rng = random.Random(seed)
    p = {"seed": seed}
    dims = rng.choice([1, 2, 2, 3, 3])
    if dims == 1:
        size = [odd(rng, 21, 151)]
    elif dims == 2:
        size = [odd(rng, 5, 41), odd(rng, 11, 41)]
    else:
        size = [odd(rng, 5, 23), odd(rng, 5, 21), odd(rng, 11, 25)]
    steps = rng.randint(2, 9)
    every = rng.choice([1, 1, 1, 1, 2, 3])
    n_launch = rng.choice([1, 2, 2, 3])
    # radius per launch: keep a step's total shrink small enough that the grid splits
    max_r = rng.choice([1, 1, 2, 2, 3, 4])

    # Arrays: one or two state groups (swap or rotate), temporaries, read-only arrays.
    arrays = {}  # name -> dict(type, init, save, role)
    groups = []
    ng = 1 if rng.random() < 0.75 else 2
    for g in range(ng):
        typ = pick_type(rng)
        kind = "swap" if rng.random() < 0.65 else "rotate"
        names = [f"s{g}{c}" for c in ("ab" if kind == "swap" else "abc")]
        for i, n in enumerate(names):
            init = f"random({rng.randint(0, 999)})" if i == 0 or rng.random() < 0.5 else f"copy({names[0]})"
            arrays[n] = {"type": typ, "init": init, "save": True, "role": "state"}
        groups.append((kind, names))
    n_temp = rng.choice([0, 0, 1, 1, 2]) if n_launch > 1 else rng.choice([0, 0, 1])
    temps = []
    for t in range(n_temp):
        n = f"t{t}"
        arrays[n] = {"type": pick_type(rng), "init": rng.choice(["zero", f"random({rng.randint(0, 999)})", "value(0.5)"]),
                     "save": rng.random() < 0.5, "role": "temp"}
        if arrays[n]["type"] in INT_TYPES and arrays[n]["init"] == "value(0.5)":
            arrays[n]["init"] = "value(7)"
        temps.append(n)
    ro = []
    for r in range(rng.choice([0, 0, 1, 1, 2])):
        n = f"c{r}"
        arrays[n] = {"type": pick_type(rng), "init": f"random({rng.randint(0, 999)})", "save": False, "role": "readonly"}
        ro.append(n)
    acc = None
    if rng.random() < 0.2:
        acc = "acc"
        arrays[acc] = {"type": pick_type(rng), "init": "zero", "save": True, "role": "acc"}

    # Which launch writes what: each group's newest member, each temporary, once per step.
    kernels = [Kernel(f"k{i}") for i in range(n_launch)]
    targets = [names[-1] for _, names in groups] + temps
    rng.shuffle(targets)
    for i, t in enumerate(targets):
        kernels[i % n_launch if i < n_launch else rng.randrange(n_launch)].writes.append(t)
    if acc:
        kernels[rng.randrange(n_launch)].writes.append(acc)
    for k in kernels:
        if not k.writes:  # a launch must write something: a fresh temporary
            n = f"t{len(temps)}"
            arrays[n] = {"type": pick_type(rng), "init": "zero", "save": rng.random() < 0.5, "role": "temp"}
            temps.append(n)
            k.writes.append(n)

    # Reads: any array the launch does not write, with a halo or at the centre only.
    readable = [n for n in arrays if n != acc]
    for k in kernels:
        cands = [n for n in readable if n not in k.writes]
        # the state each group moves forward from
        must = [names[-2] for _, names in groups if names[-1] in k.writes]
        reads = set(must)
        for n in cands:
            if rng.random() < 0.35:
                reads.add(n)
        if not reads:
            reads.add(rng.choice(cands))
        radius = rng.randint(1, max_r)
        for n in sorted(reads):
            if rng.random() < 0.65:
                lo, hi, pts, form = make_halo(rng, dims, radius)
                k.args.append(Arg(n, "read", lo, hi, pts, form))
            else:
                k.args.append(Arg(n, "read", [0] * dims, [0] * dims, [], "none"))
        for n in k.writes:
            k.args.append(Arg(n, "readwrite" if n == acc else "write", [0] * dims, [0] * dims))
        rng.shuffle(k.args)

    # Halo bookkeeping, as the planner does it (generator/plan/plan.cpp).
    def launch_shrink(k):
        lo = [max([a.lo[d] for a in k.args if a.access != "write"] + [0]) for d in range(dims)]
        hi = [max([a.hi[d] for a in k.args if a.access != "write"] + [0]) for d in range(dims)]
        return lo, hi

    grid_lo = [0] * dims
    grid_hi = [0] * dims
    for k in kernels:
        for a in k.args:
            if a.access != "write":
                grid_lo = [max(grid_lo[d], a.lo[d]) for d in range(dims)]
                grid_hi = [max(grid_hi[d], a.hi[d]) for d in range(dims)]
    # Rims: at least the launch's halo (its reads stay in the buffer); wider only where every
    # mode still computes every cell one device does: within the halos of this and the earlier
    # launches of a step (the validity a chunk or deep-halo window assumes, `rim_bound`), and with
    # one exchange per step within the ghost width.
    cum_lo = [0] * dims
    cum_hi = [0] * dims
    for k in kernels:
        slo, shi = launch_shrink(k)
        cum_lo = [cum_lo[d] + slo[d] for d in range(dims)]
        cum_hi = [cum_hi[d] + shi[d] for d in range(dims)]
        if wide_rims:
            blo = [slo[d] + 3 for d in range(dims)]
            bhi = [shi[d] + 3 for d in range(dims)]
        else:
            blo = [min(cum_lo[d], grid_lo[d]) if every == 1 else cum_lo[d] for d in range(dims)]
            bhi = [min(cum_hi[d], grid_hi[d]) if every == 1 else cum_hi[d] for d in range(dims)]
        wider = rng.random() < 0.5
        k.rim_lo = [rng.randint(slo[d], max(slo[d], blo[d])) if wider else slo[d] for d in range(dims)]
        k.rim_hi = [rng.randint(shi[d], max(shi[d], bhi[d])) if wider else shi[d] for d in range(dims)]
        k.shrink = (slo, shi)
        if rng.random() < 0.3:  # boundaries decided globally (offset + index vs global_extent)
            k.glob_lo = [rng.randint(0, 3) for _ in range(dims)]
            k.glob_hi = [rng.randint(0, 3) for _ in range(dims)]
            # A global guard leaves at least one cell along every dimension (seed 30038: 3 + 2
            # of 5 cells, a kernel that writes nothing on the whole grid, which the probe
            # rightly cannot check); clamped without drawing, so other seeds stay as they were.
            for d in range(dims):
                k.glob_hi[d] = max(0, min(k.glob_hi[d], size[d] - 1 - k.glob_lo[d]))
                k.glob_lo[d] = min(k.glob_lo[d], size[d] - 1 - k.glob_hi[d])
        k.use_step = rng.random() < 0.25
        if rng.random() < 0.6:
            choices = {1: [1, 2, 4, 8, 16], 2: [1, 2, 4, 8], 3: [1, 2, 4]}[dims]
            k.local = [rng.choice(choices) for _ in range(dims)]
        # <local size="auto"/> with 2-3 candidates (tune.hpp at start-up; out of core the
        # runner times them again on the chunks and switches shapes mid-run: ooc/retune.hpp).
        # A stream of its own, so that the seeds' other choices stay as they were.
        arng = random.Random(f"{seed}-auto-{k.name}")
        if arng.random() < 0.4:
            choices = {1: [1, 2, 4, 8, 16, 32], 2: [1, 2, 4, 8], 3: [1, 2, 4]}[dims]
            shapes = set()
            n_shapes = arng.choice([2, 3])
            while len(shapes) < n_shapes:
                shapes.add(tuple(arng.choice(choices) for _ in range(dims)))
            k.auto = sorted(shapes)
            k.local = None
        # arithmetic: per output a list of terms (weight, kind, arrays/points)
        reads = [a for a in k.args if a.access == "read"]
        for out in k.writes:
            terms = []
            for a in reads:
                for pt in [tuple([0] * dims)] + a.points:
                    if pt != tuple([0] * dims) or a.form == "none" or rng.random() < 0.5:
                        terms.append(("val", a.array, pt))
            rng.shuffle(terms)
            if len(reads) >= 2 and rng.random() < 0.4:  # a product of two reads
                a, b = rng.sample(reads, 2)
                terms.append(("mul", (a.array, rng.choice([tuple([0] * dims)] + a.points)),
                              (b.array, rng.choice([tuple([0] * dims)] + b.points))))
            if rng.random() < 0.3:
                terms.append(("div", reads[0].array, tuple([0] * dims), rng.choice([3, 5, 7])))
            if k.use_step:
                terms.append(("step",))
            # weights whose magnitudes sum to at most 1 (float), small integers (int)
            raw = [rng.uniform(0.05, 1.0) * rng.choice([1, 1, -1]) for _ in terms]
            tot = sum(abs(w) for w in raw) * rng.uniform(1.0, 1.2)
            k.body[out] = [(w / tot, rng.randint(1, 9), t) for w, t in zip(raw, terms)]

    p.update(dims=dims, size=size, steps=steps, every=every, arrays=arrays, groups=groups,
             kernels=kernels, temps=temps, ro=ro, acc=acc, grid_lo=grid_lo, grid_hi=grid_hi,
             step_lo=cum_lo, step_hi=cum_hi)
    features.add_features(p, feature_spec)  # streams of their own: rng's draws stay
    p["modes"] = make_modes(rng, p)
    return p


# ---------------------------------------------------------------------------------------------
# Kernel code


def index_expr(pt, dims):
    """The linear offset of neighbour pt, as the kernel writes it."""
    parts = []
    if dims >= 1 and pt[0]:
        parts.append(f"({pt[0]})")
    if dims >= 2 and pt[1]:
        parts.append(f"nx * ({pt[1]})")
    if dims >= 3 and pt[2]:
        parts.append(f"nx * ny * ({pt[2]})")
    return "c" + "".join(" + " + s for s in parts)


def kernel_code(p, k, cuda):
    dims, arrays = p["dims"], p["arrays"]
    ext = ["nx", "ny", "nz"][:dims]
    params = []
    for a in k.args:
        t = arrays[a.array]["type"]
        t = CUDA_TYPE[t] if cuda else t
        const = "const " if a.access == "read" else ""
        params.append(("" if cuda else "__global ") + f"{const}{t}* {a.array}")
    params += [f"const int {e}" for e in ext]
    if k.glob_lo is not None or features.stepw_dims(k, dims):
        params += [f"const int o{DIMS[d]}" for d in range(dims)] + [f"const int g{e}" for e in ext]
    if k.use_step:
        params.append("const int istep")
    head = ("__global__ void " if cuda else "__kernel void ") + k.name + "(" + ", ".join(params) + ") {"
    L = [head]
    sd = k.scan[0] if k.scan is not None else None  # a line recurrence loops over dimension sd
    line = [d for d in range(dims) if d != sd]
    for d in line:
        gid = f"blockIdx.{DIMS[d]} * blockDim.{DIMS[d]} + threadIdx.{DIMS[d]}" if cuda else f"get_global_id({d})"
        L.append(f"  const int {DIMS[d]} = {gid};")
    L.append("  if (" + " || ".join(f"{DIMS[d]} >= {ext[d]}" for d in line) + ") return;")
    rim = []
    for d in line:
        rim.append(f"{DIMS[d]} < {k.rim_lo[d]}")
        rim.append(f"{DIMS[d]} >= {ext[d]} - {k.rim_hi[d]}")
    L.append("  if (" + " || ".join(rim) + ") return;  // the rim (halo below/above: "
             + f"{k.shrink[0]}/{k.shrink[1]})")
    def gidx(d, wrap):
        """The global index along d; wrapped into the grid where frame cells must be computed
        as the images of the cells they stand for (a periodic frame: docs/spec.md)."""
        g = f"o{DIMS[d]} + {DIMS[d]}"
        return f"((({g}) % g{ext[d]} + g{ext[d]}) % g{ext[d]})" if wrap else g

    periodic = p.get("periodic_dims", set())
    if k.glob_lo is not None:
        g = []
        for d in range(dims):
            g.append(f"{gidx(d, d in periodic)} < {k.glob_lo[d]}")
            g.append(f"{gidx(d, d in periodic)} >= g{ext[d]} - {k.glob_hi[d]}")
        L.append("  if (" + " || ".join(g) + ") return;  // the whole grid's boundary")
    if k.stepw is not None:  # the global index, for the step-dependent test
        L += [f"  const int g{DIMS[d]} = {gidx(d, True)};" for d in features.stepw_dims(k, dims)]
        L += [f"  (void)g{DIMS[d]};  // a plane: not tested along {DIMS[d]}" for d in features.stepw_dims(k, dims)
              if k.stepw[1][0] == "source" and d > 0 and k.stepw[1][3][d] is None]
    readwrite = [out for out in k.writes if next(a for a in k.args if a.array == out).access == "readwrite"]
    if sd is not None:  # the recurrence's running values, then the loop over the whole line
        for out in k.writes:
            typ = arrays[out]["type"]
            L.append(f"  uint r_{out} = 0u;" if typ in INT_TYPES else f"  {typ} r_{out} = {fmt_float(0.0, typ)};")
        v = DIMS[sd]
        L.append(f"  for (int {v} = 0; {v} < {ext[sd]}; ++{v}) {{" if k.scan[1]
                 else f"  for (int {v} = {ext[sd]} - 1; {v} >= 0; --{v}) {{")
    lin = "x"
    if dims >= 2:
        lin = "x + nx * y" if dims == 2 else "x + nx * (y + ny * z)"
    L.append(f"  const int c = {lin};")
    if k.mask is not None:
        L.append(f"  const int m = {features.mask_cond(k, dims, index_expr)};  // the mask")
        if len(readwrite) == len(k.writes):
            L.append("  if (m) return;  // masked cells keep their values")

    def fval(arr, pt, typ):
        """arr at pt as a value of float type typ in [-1, 1]."""
        at = arrays[arr]["type"]
        v = f"{arr}[{index_expr(pt, dims)}]"
        if at in INT_TYPES:
            return f"({typ})({v}) * 0.0009765625{'f' if typ == 'float' else ''}"
        return v if at == typ else f"({typ})({v})"

    def ival(arr, pt):
        at = arrays[arr]["type"]
        v = f"{arr}[{index_expr(pt, dims)}]"
        if at in INT_TYPES:
            return f"(uint)({v})"
        return f"(uint)(int)({v} * 256.0{'f' if at == 'float' else ''})"

    def sum_int(var, terms):
        for w, iw, t in terms:
                if t[0] == "val":
                    e = ival(t[1], t[2])
                elif t[0] == "mul":
                    e = f"({ival(*t[1])} * {ival(*t[2])})"
                elif t[0] == "div":
                    e = f"({ival(t[1], t[2])} / {t[3]}u)"
                else:
                    e = "(uint)istep"
                L.append(f"  {var} = {var} + {iw}u * {e};")

    def sum_float(var, terms, typ):
            for w, iw, t in terms:
                if t[0] == "val":
                    e = fval(t[1], t[2], typ)
                elif t[0] == "mul":
                    e = f"({fval(*t[1], typ)} * {fval(*t[2], typ)})"
                elif t[0] == "div":
                    e = f"({fval(t[1], t[2], typ)} / {fmt_float(t[3], typ)})"
                else:
                    e = f"({typ})(istep % 8) * {fmt_float(0.125, typ)}"
                L.append(f"  {var} = {var} + {fmt_float(w, typ)} * {e};")

    for out in k.writes:
        typ = arrays[out]["type"]
        var = f"s_{out}"
        integer = typ in INT_TYPES
        ct = (CUDA_TYPE[typ] if cuda else typ) if integer else typ
        L.append(f"  uint {var} = 0u;" if integer else f"  {typ} {var} = {fmt_float(0.0, typ)};")
        alt = k.mask[3].get(out) if k.mask is not None else None
        if alt is not None:  # the masked cells' sum reads other neighbours
            L.append("  if (m) {")
            sum_int(var, alt) if integer else sum_float(var, alt, typ)
            L.append("  } else {")
        sum_int(var, k.body[out]) if integer else sum_float(var, k.body[out], typ)
        if alt is not None:
            L.append("  }")
        guard = []
        if out in readwrite and k.mask is not None and len(readwrite) < len(k.writes):
            guard.append("!m")
        if k.stepw is not None and out == k.stepw[0]:
            guard.append(f"({features.stepw_cond(k, dims)})")
        store = f"  if ({' && '.join(guard)}) " if guard else "  "
        h = fmt_float(0.5, typ)
        if sd is not None:  # the line's recurrence
            if integer:
                L.append(f"  r_{out} = (r_{out} * 3u + {var}) % 1021u;")
                L.append(f"  {out}[c] = ({ct})r_{out};")
            else:
                L.append(f"  r_{out} = {h} * r_{out} + {h} * {var};")
                L.append(f"  {out}[c] = r_{out};")
        elif out in readwrite:
            if integer:
                L.append(f"{store}{out}[c] = ({ct})(((uint)({out}[c]) + {var}) % 1021u);")
            else:
                L.append(f"{store}{out}[c] = {h} * {out}[c] + {h} * {var};")
        else:
            L.append(f"  {out}[c] = ({ct})({var} % 1021u);" if integer else f"  {out}[c] = {var};")
    if sd is not None:
        L.append("  }")
    L.append("}")
    if cuda:
        text = "\n".join(L)
        text = text.replace("(uint)", "(unsigned)").replace("uint ", "unsigned ")
        return text
    return "\n".join(L)


def source(p, cuda):
    head = [f"// difftest program, seed {p['seed']}: {summary(p)}"]
    if not cuda:
        head.insert(0, "#pragma OPENCL FP_CONTRACT OFF")
        if any(a["type"] == "double" for a in p["arrays"].values()):
            head.insert(1, "#pragma OPENCL EXTENSION cl_khr_fp64 : enable")
    return "\n".join(head) + "\n\n" + "\n\n".join(kernel_code(p, k, cuda) for k in p["kernels"]) + "\n"


# ---------------------------------------------------------------------------------------------
# Spec


def scalar_args(p, k):
    first = k.args[0].array
    out = [("int", f"extent({first},{d})") for d in range(p["dims"])]
    if k.glob_lo is not None or features.stepw_dims(k, p["dims"]):
        out += [("int", f"offset({first},{d})") for d in range(p["dims"])]
        out += [("int", f"global_extent({first},{d})") for d in range(p["dims"])]
    if k.use_step:
        out.append(("int", "step"))
    return out


def global_size(p, k):
    first = k.args[0].array
    sd = k.scan[0] if k.scan is not None else None  # a line recurrence: one work-item per line
    if k.local:
        return ["1" if d == sd else f"round_up(extent({first},{d}), {k.local[d]})" for d in range(p["dims"])]
    return ["1" if d == sd else f"extent({first},{d})" for d in range(p["dims"])]


def body_steps(p):
    out = [("launch", k.name) for k in p["kernels"]]
    for kind, names in p["groups"]:
        out.append((kind, names if kind == "rotate" else names))
    return out


def write_xml(p, path):
    dims = p["dims"]
    L = ['<?xml version="1.0"?>', f"<!-- {summary(p)} -->", f'<stencil name="prog">']
    for d in range(dims):
        L.append(f'  <constant name="N{DIMS[d].upper()}" value="{p["size"][d]}"/>')
    size = " ".join(f"N{DIMS[d].upper()}" for d in range(dims))
    for n, a in p["arrays"].items():
        save = "" if a["save"] else ' save="false"'
        L.append(f'  <array name="{n}" type="{a["type"]}" size="{size}" init="{a["init"]}"{save}/>')
    for n, d, kind in p["boundaries"]:
        L.append(f'  <boundary arrays="{n}" dims="{DIMS[d]}" kind="{kind}"/>')
    for k in p["kernels"]:
        L.append(f'  <kernel name="{k.name}" source="prog.cl" cuda-source="prog.cu">')
        for a in k.args:
            h = ""
            if a.form == "points":
                h = ' halo="' + " ".join(",".join(str(v) for v in pt) for pt in a.points) + '"'
            elif a.form == "widths":
                h = f' halo_lo="{" ".join(map(str, a.lo))}" halo_hi="{" ".join(map(str, a.hi))}"'
            L.append(f'    <arg array="{a.array}" access="{a.access}"{h}/>')
        for t, v in scalar_args(p, k):
            L.append(f'    <arg scalar="{t}" value="{v}"/>')
        L.append(f'    <global size="{" ".join(global_size(p, k))}"/>')
        if k.local:
            L.append(f'    <local size="{" ".join(map(str, k.local))}"/>')
        if k.auto:
            cands = "; ".join(" ".join(map(str, sh)) for sh in k.auto)
            L.append(f'    <local size="auto" candidates="{cands}"/>')
        L.append("  </kernel>")
    L.append(f'  <iterate steps="{p["steps"]}">')
    for kind, x in body_steps(p):
        if kind == "launch":
            L.append(f'    <launch kernel="{x}"/>')
        elif kind == "swap":
            L.append(f'    <swap a="{x[0]}" b="{x[1]}"/>')
        else:
            L.append(f'    <rotate arrays="{" ".join(x)}"/>')
    L.append("  </iterate>")
    if p["every"] > 1:
        L.append(f'  <exchange every="{p["every"]}"/>')
    L.append("</stencil>")
    write(path, "\n".join(L) + "\n")


def write_yaml(p, path):
    dims = p["dims"]
    L = [f"# {summary(p)}", "stencil: prog"]
    L.append("constants: {" + ", ".join(f"N{DIMS[d].upper()}: {p['size'][d]}" for d in range(dims)) + "}")
    size = "[" + ", ".join(f"N{DIMS[d].upper()}" for d in range(dims)) + "]"
    L.append("arrays:")
    for n, a in p["arrays"].items():
        save = "" if a["save"] else ", save: false"
        L.append(f"  - {{name: {n}, type: {a['type']}, size: {size}, init: \"{a['init']}\"{save}}}")
    if p["boundaries"]:
        L.append("boundaries:")
        L += [f'  - {{arrays: {n}, dims: [{DIMS[d]}], kind: "{kind}"}}' for n, d, kind in p["boundaries"]]
    L.append("kernels:")
    for k in p["kernels"]:
        L += [f"  - name: {k.name}", "    source: prog.cl", "    cuda_source: prog.cu", "    args:"]
        for a in k.args:
            h = ""
            if a.form == "points":
                h = ", halo: [" + ", ".join("[" + ", ".join(map(str, pt)) + "]" for pt in a.points) + "]"
            elif a.form == "widths":
                h = f", halo_lo: [{', '.join(map(str, a.lo))}], halo_hi: [{', '.join(map(str, a.hi))}]"
            L.append(f"      - {{array: {a.array}, access: {a.access}{h}}}")
        for t, v in scalar_args(p, k):
            L.append(f'      - {{scalar: {t}, value: "{v}"}}')
        L.append("    global: [" + ", ".join(f'"{g}"' for g in global_size(p, k)) + "]")
        if k.local:
            L.append(f"    local: [{', '.join(map(str, k.local))}]")
        if k.auto:
            cands = "; ".join(" ".join(map(str, sh)) for sh in k.auto)
            L.append("    local: auto")
            L.append(f'    local_candidates: "{cands}"')
    L += ["iterate:", f"  steps: {p['steps']}", "  body:"]
    for kind, x in body_steps(p):
        if kind == "launch":
            L.append(f"    - {{launch: {x}}}")
        else:
            L.append(f"    - {{{kind}: [{', '.join(x)}]}}")
    if p["every"] > 1:
        L.append(f"exchange: {{every: {p['every']}}}")
    write(path, "\n".join(L) + "\n")


def summary(p):
    k = p["kernels"]
    halos = []
    for kk in k:
        halos.append(f"{kk.name}: halo {kk.shrink[0]}/{kk.shrink[1]} rim {kk.rim_lo}/{kk.rim_hi}"
                     + (f" global rim {kk.glob_lo}/{kk.glob_hi}" if kk.glob_lo is not None else "")
                     + (f" local auto {len(kk.auto)} shapes" if kk.auto else ""))
    groups = " ".join(f"{kind}({','.join(n)})" for kind, n in p["groups"])
    types = ",".join(sorted({a["type"] for a in p["arrays"].values()}))
    return (f"{p['dims']}D {'x'.join(map(str, p['size']))}, {p['steps']} steps, {len(k)} launch(es), "
            f"{groups}, temps [{','.join(p['temps'])}], read-only [{','.join(p['ro'])}]"
            f"{', acc' if p['acc'] else ''}, every {p['every']}, types {types}; " + "; ".join(halos)
            + (f"; {features.describe(p)}" if features.describe(p) else ""))


def saved_arrays(p):
    """The arrays kept at the end: saved and written by a launch (or in a group with one)."""
    written = set()
    for k in p["kernels"]:
        written.update(k.writes)
    for _, names in p["groups"]:
        if written & set(names):
            written.update(names)
    return [n for n, a in p["arrays"].items() if a["save"] and n in written]


# ---------------------------------------------------------------------------------------------
# Modes


def make_modes(rng, p):
    """A random sample of modes; each must give the bits of the one-device in-core run."""
    dims, size, steps = p["dims"], p["size"], p["steps"]
    slow = dims - 1
    s_slow = max(p["step_lo"][slow], p["step_hi"][slow], 1)
    strategies = ["", "min-exchange", "slabs", "stepocl"]
    modes = []

    def strat(n, r=rng):
        s = r.choice(strategies) if n > 1 else ""
        return ([f"--strategy {s}"] if s else []) + weights(n, r)

    def weights(n, r=rng):  # uneven parts now and then
        if n == 1 or r.random() < 0.7:
            return []
        return ["--weights " + ",".join(str(r.randint(1, 4)) for _ in range(n))]

    def onoff(flag, prob=0.5, r=rng):
        return [f"--{flag} {'on' if r.random() < prob else 'off'}"] if r.random() < 0.5 else []

    def ooc_args(n, r=rng, kmin=1):
        """Forced chunks and k (a chunk owns at least k halos of planes), random switches."""
        k = r.randint(min(kmin, steps, 4), min(steps, 4))
        planes = size[slow] // n
        cmax = max(1, min(6, planes // max(1, k * s_slow)))
        c = r.randint(1, cmax)
        a = ["--out-of-core on", f"--ooc-chunks {c}", f"--steps-per-pass {k}"]
        # k > every needs the parts split along the slowest dimension only (plan.cpp)
        a += (["--strategy slabs"] + weights(n, r) if k > p["every"] or r.random() < 0.5 else strat(n, r)) if n > 1 else []
        for flag in ["trapezoid", "band-sharing", "region-sharing", "overlap", "pinned"]:
            a += onoff(flag, 0.6, r)
        if r.random() < 0.2:
            a.append(f"--ooc-buffers {r.choice([3, 4])}")
        # Kernels with <local size="auto"/>: their shapes timed again on the chunks and changed
        # mid-run, in these short runs too (a stream of its own: the seeds' modes stay).
        if any(k.auto for k in p["kernels"]) and retune_rng.random() < 0.6:
            a.append("--ooc-retune always")
        return a

    retune_rng = random.Random(f"{p['seed']}-retune")
    n_modes = int(os.environ.get("DIFFTEST_MODES", "8"))
    for i in range(n_modes):
        r = rng.random()
        if r < 0.4:  # in core, several devices
            n = rng.randint(2, 4)
            env = "STEPGEN_OVERLAP=off" if rng.random() < 0.25 else "-"
            modes.append((f"incore{n}", env, " ".join([f"--devices {n}"] + strat(n))))
        elif r < 0.85:  # out of core, forced chunks and k
            n = rng.choice([1, 1, 2, 3])
            modes.append((f"ooc{n}", "-", " ".join([f"--devices {n}"] + ooc_args(n))))
        else:  # out of core, the model's choice under a small budget
            n = rng.choice([1, 2])
            cells = 1
            for v in size:
                cells *= v
            nbytes = sum(8 if a["type"] == "double" else 4 for a in p["arrays"].values()) * cells
            budget = max(4096, int(nbytes / n * rng.uniform(2.0, 8.0)))
            modes.append((f"oocmodel{n}", "-", f"--devices {n} --out-of-core on --device-memory {budget}"))
    # Boundary frames out of core with 2-4 steps per pass (frames composed on the host at each
    # pass boundary, refilled on the device between the steps of a pass), 1-3 devices.
    if p["boundaries"]:
        brng = random.Random(f"{p['seed']}-boundary-modes")
        for _ in range(2):
            n = brng.choice([1, 1, 2, 3])
            modes.append((f"ooc{n}", "-", " ".join([f"--devices {n}"] + ooc_args(n, brng, 2))))
    # `--out-of-core auto` taking out of core whatever the prediction (STEPGEN_AUTO_CHOICE): the
    # calibration on samples of the arrays, then the host copies the in-core start-up did not
    # make (a stream of its own: the seeds' other modes stay).
    auto_rng = random.Random(f"{p['seed']}-auto")
    if auto_rng.random() < 0.3:
        n = auto_rng.choice([1, 2])
        modes.append((f"auto{n}", "STEPGEN_AUTO_CHOICE=out-of-core", f"--devices {n} --out-of-core auto"))
    # --parts: more parts than devices, in core (parts of one device exchange on it), with the
    # strategies and weights of one weight per device (a stream of its own: the seeds' other
    # modes stay).
    parts_rng = random.Random(f"{p['seed']}-parts")
    if parts_rng.random() < float(os.environ.get("DIFFTEST_PARTS", "0.5")):
        n = parts_rng.choice([1, 1, 2])
        k = parts_rng.randint(n + 1, n + 4)
        env = "STEPGEN_OVERLAP=off" if parts_rng.random() < 0.25 else "-"
        s = parts_rng.choice(strategies)
        a = [f"--devices {n} --parts {k}"] + ([f"--strategy {s}"] if s else []) + weights(n, parts_rng)
        modes.append((f"parts{n}x{k}", env, " ".join(a)))
    mpi_p = float(os.environ.get("DIFFTEST_MPI", "0.2"))
    if rng.random() < mpi_p:
        for _ in range(2):
            n = rng.choice([2, 3])
            a = strat(n) if rng.random() < 0.5 else ooc_args(n)
            modes.append((f"mpi{n}", "-", " ".join(a)))
    # MPI ranks of several devices or parts (--devices 2, --parts P, in core: each rank's box
    # cut into P parts, copies between them, messages between ranks; a stream of its own: the
    # seeds' other modes stay).
    devices_rng = random.Random(f"{p['seed']}-mpi-devices")
    if devices_rng.random() < float(os.environ.get("DIFFTEST_MPI_DEVICES", "0.2")):
        n = devices_rng.choice([1, 2, 3])
        per_rank = devices_rng.choice(["--devices 2", "--devices 2 --parts 3", "--parts 3"])
        modes.append((f"mpi{n}", "-", " ".join([per_rank] + strat(n, devices_rng))))
    return modes


def write(path, text):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, path)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("seed", type=int)
    ap.add_argument("outdir")
    ap.add_argument("--format", choices=["xml", "yaml"], help="default: xml for even seeds")
    ap.add_argument("--wide-rims", action="store_true",
                    help="rims up to 3 cells wider than the halo anywhere (the kernel probe widens ghosts and windows for them)")
    ap.add_argument("--features", default=os.environ.get("DIFFTEST_FEATURES"),
                    help="NAME[=P],...: draw features.py's features with these probabilities (default P 1; all)")
    o = ap.parse_args()
    p = generate(o.seed, o.wide_rims, o.features)
    fmt = o.format or ("xml" if o.seed % 2 == 0 else "yaml")
    os.makedirs(o.outdir, exist_ok=True)
    write(os.path.join(o.outdir, "prog.cl"), source(p, cuda=False))
    write(os.path.join(o.outdir, "prog.cu"), source(p, cuda=True))
    for name, data in p["files"].items():  # init="file(NAME)" inputs, beside the spec
        with open(os.path.join(o.outdir, name + ".tmp"), "wb") as f:
            f.write(data)
        os.replace(os.path.join(o.outdir, name + ".tmp"), os.path.join(o.outdir, name))
    (write_xml if fmt == "xml" else write_yaml)(p, os.path.join(o.outdir, f"prog.{fmt}"))
    write(os.path.join(o.outdir, "saves.txt"), "".join(n + "\n" for n in saved_arrays(p)))
    write(os.path.join(o.outdir, "modes.txt"), "".join("\t".join(m) + "\n" for m in p["modes"]))
    write(os.path.join(o.outdir, "summary.txt"), summary(p) + "\n")


if __name__ == "__main__":
    main()
