"""The differential tester's optional program features (gen.py draws them after the base program).

Each feature is drawn from a random stream of its own (random.Random(f"{seed}-NAME")), and only
changes a program that draws it, so a seed that draws none is the program it always was:

  scan      a line recurrence: one kernel launched with a global size of 1 along dimension `sd`
            loops over the whole line (r = r/2 + s/2 or, for integers, r = 3r + s mod 1021),
            every array it reads declared with a halo as wide as the whole line (size - 1, below
            for a forward scan, above for a backward one: docs/spec.md, "That it reads no whole
            line"). Only with one exchange per step (a deep halo would be wider than the array).
  stepw     a step-dependent writer: an array `w0`, `readwrite` in one launch, updated in place
            only in the cells a condition on `step` and the global index picks (every K-th step,
            a wavefront hyperplane x + y + z = step mod K, a moving source plane or cell); the
            other cells carry over. Other launches may read it with a halo. The test takes the
            global index wrapped into the grid (so that a periodic frame's cells are computed as
            the images of their cells, as docs/spec.md requires of kernels between exchanges).
  mask      an integer mask `m0` (read-only; init random(seed), values 0-99, tested against a
            threshold of 2-7, which the probe's integer fill 1..7 crosses: a threshold no probe fill
            crosses is refused at start-up as a kernel the probe cannot check, or file(mask.raw), a pattern of 0 and 1) read at the cell or at a
            neighbour inside the kernel's halo: written outputs take one of two sums of
            different neighbours, `readwrite` outputs are skipped where the mask is set.
  boundary  <boundary> frames along some dimensions (never a scan's), per array group, each of
            its own kind (periodic, mirror, value(v), copy: only periodic with deep halos); every
            array read with a halo along such a dimension gets one, read-only arrays too, and
            other arrays read with a halo now and then; along a periodic dimension the kernels'
            global-boundary guards wrap the global index too. Programs with boundaries also run out of
            core with 2-4 steps per pass (docs/out-of-core.md, "Boundary frames").

Every read stays within a declared halo in every branch, so the programs stay valid.
DIFFTEST_FEATURES (gen.py --features) changes the probabilities: `mask,scan=0.5` draws masks
always and scans half the time; `all` draws every feature.
"""
import itertools
import random
import struct

PROB = {"scan": 0.06, "stepw": 0.08, "mask": 0.08, "boundary": 0.1}


def probabilities(spec):
    """PROB with the overrides of a DIFFTEST_FEATURES string (NAME[=P],...; `all`)."""
    prob = dict(PROB)
    for item in filter(None, (spec or "").split(",")):
        name, _, val = item.partition("=")
        names = list(PROB) if name == "all" else [name]
        for n in names:
            if n not in PROB:
                raise SystemExit(f"gen.py: unknown feature {n!r} (known: {', '.join(PROB)}, all)")
            prob[n] = float(val) if val else 1.0
    return prob


def zero_pt(pt, d):
    return tuple(0 if e == d else v for e, v in enumerate(pt))


def reweigh(k, out, term, rng):
    """Adds a term to out's sum, scaling the others so that the magnitudes stay within 1."""
    w = rng.uniform(0.05, 0.3) * rng.choice([1, -1])
    k.body[out] = [(ww * (1 - abs(w)), iw, t) for ww, iw, t in k.body[out]] + [(w, rng.randint(1, 9), term)]


def other_terms(k, dims, rng):
    """A sum of a random subset of the points k's read arguments declare (another branch)."""
    pts = []
    for a in k.args:
        if a.access == "read" and a.array != getattr(k, "mask_array", None):
            pts += [("val", a.array, pt) for pt in [tuple([0] * dims)] + a.points]
    rng.shuffle(pts)
    terms = pts[: rng.randint(1, max(1, len(pts)))]
    raw = [rng.uniform(0.05, 1.0) * rng.choice([1, -1]) for _ in terms]
    tot = sum(abs(w) for w in raw) * rng.uniform(1.0, 1.2)
    return [(w / tot, rng.randint(1, 9), t) for w, t in zip(raw, terms)]


def recount(p):
    """The halo bookkeeping of gen.py again, after a kernel's halos changed."""
    dims = p["dims"]
    p["grid_lo"], p["grid_hi"] = [0] * dims, [0] * dims
    cum_lo, cum_hi = [0] * dims, [0] * dims
    for k in p["kernels"]:
        slo = [max([a.lo[d] for a in k.args if a.access != "write"] + [0]) for d in range(dims)]
        shi = [max([a.hi[d] for a in k.args if a.access != "write"] + [0]) for d in range(dims)]
        k.shrink = (slo, shi)
        cum_lo = [cum_lo[d] + slo[d] for d in range(dims)]
        cum_hi = [cum_hi[d] + shi[d] for d in range(dims)]
        p["grid_lo"] = [max(p["grid_lo"][d], slo[d]) for d in range(dims)]
        p["grid_hi"] = [max(p["grid_hi"][d], shi[d]) for d in range(dims)]
    p["step_lo"], p["step_hi"] = cum_lo, cum_hi


def plain(k):
    """A kernel no feature changed yet, that writes no array in place."""
    return k.scan is None and k.mask is None and not any(a.access == "readwrite" for a in k.args)


def add_scan(p, rng):
    """One kernel becomes a recurrence along a whole line (whole-line halos, global size 1 there)."""
    dims, size = p["dims"], p["size"]
    cands = [k for k in p["kernels"] if plain(k)]
    if dims < 2 or p["every"] != 1 or not cands:
        return
    k = rng.choice(cands)
    sd = rng.randrange(dims - 1) if rng.random() < 0.75 else dims - 1
    forward = rng.random() < 0.6
    whole = size[sd] - 1
    for a in k.args:
        if a.access != "read":
            continue
        a.points = sorted({zero_pt(pt, sd) for pt in a.points} - {tuple([0] * dims)})
        a.lo, a.hi = list(a.lo), list(a.hi)
        a.lo[sd], a.hi[sd] = (whole, 0) if forward else (0, whole)
        a.form = "widths"
    for out, terms in k.body.items():
        new = []
        for w, iw, t in terms:
            if t[0] == "val":
                t = ("val", t[1], zero_pt(t[2], sd))
            elif t[0] == "mul":
                t = ("mul", (t[1][0], zero_pt(t[1][1], sd)), (t[2][0], zero_pt(t[2][1], sd)))
            elif t[0] == "div":
                t = ("div", t[1], zero_pt(t[2], sd), t[3])
            new.append((w, iw, t))
        k.body[out] = new
    k.scan = (sd, forward)
    k.glob_lo = k.glob_hi = None
    k.auto = None
    if k.local:
        k.local[sd] = 1
    k.rim_lo, k.rim_hi = list(k.rim_lo), list(k.rim_hi)
    k.rim_lo[sd] = k.rim_hi[sd] = 0
    recount(p)


def add_stepw(p, rng, pick_type):
    """An array updated in place by one launch, only in the cells a step-dependent test picks."""
    from gen import Arg
    dims, size = p["dims"], p["size"]
    cands = [k for k in p["kernels"] if plain(k)]
    if not cands:
        return
    k = rng.choice(cands)
    name = "w0"
    typ = pick_type(rng)
    p["arrays"][name] = {"type": typ, "init": f"random({rng.randint(0, 999)})", "save": True, "role": "stepw"}
    kind = rng.choice(["every", "wave", "source"])
    if kind == "every":
        K = rng.choice([2, 3])
        cond = ("every", K, rng.randrange(K))
    elif kind == "wave":
        cond = ("wave", rng.randint(3, 7))
    else:  # a plane moving along x, now and then a cell (fixed in the other dimensions)
        fixed = [None] + [rng.randrange(size[d]) if rng.random() < 0.5 else None for d in range(1, dims)]
        cond = ("source", rng.choice([1, 2, 3]), rng.randrange(size[0]), fixed)
    k.stepw = (name, cond)
    k.use_step = True
    k.writes.append(name)
    k.args.insert(rng.randint(0, len(k.args)), Arg(name, "readwrite", [0] * dims, [0] * dims))
    k.body[name] = other_terms(k, dims, rng)
    # Readers: other launches, at points within their own halos (their rims stay right).
    for r in p["kernels"]:
        if r is k or r.scan is not None or rng.random() < 0.5:
            continue
        slo, shi = r.shrink
        pts = set()
        for _ in range(rng.randint(0, 3)):
            pts.add(tuple(rng.randint(-slo[d], shi[d]) for d in range(dims)))
        pts.discard(tuple([0] * dims))
        pts = sorted(pts)
        lo = [max([0] + [-pt[d] for pt in pts]) for d in range(dims)]
        hi = [max([0] + [pt[d] for pt in pts]) for d in range(dims)]
        r.args.insert(rng.randint(0, len(r.args)), Arg(name, "read", lo, hi, pts, "points" if pts else "none"))
        for out in r.writes:
            if out in r.body:
                reweigh(r, out, ("val", name, rng.choice([tuple([0] * dims)] + pts)), rng)
    recount(p)


def write_mask_file(p, rng, typ):
    """mask.raw: 0 and 1 in blocks, stripes or at random, little-endian elements of typ."""
    dims, size = p["dims"], p["size"]
    fmt = {"int": "<i", "uint": "<I", "short": "<h", "uchar": "<B"}[typ]
    pattern = rng.choice(["random", "blocks", "stripes"])
    b = [rng.randint(2, 5) for _ in range(dims)]
    out = bytearray()
    for idx in itertools.product(*[range(s) for s in reversed(size)]):
        idx = tuple(reversed(idx))  # x fastest
        if pattern == "random":
            v = 1 if rng.random() < 0.4 else 0
        elif pattern == "blocks":
            v = sum(i // bb for i, bb in zip(idx, b)) % 2
        else:
            v = 1 if idx[-1] % b[0] == 0 else 0
        out += struct.pack(fmt, v)
    p["files"]["mask.raw"] = bytes(out)
    return pattern


def add_mask(p, rng):
    """An integer mask: branches reading different neighbours, in-place writes skipped where set."""
    from gen import Arg
    dims = p["dims"]
    cands = [k for k in p["kernels"] if k.scan is None and k.mask is None]
    if not cands:
        return
    name = "m0"
    typ = rng.choice(["int", "int", "uchar", "short", "uint"])
    if rng.random() < 0.5:
        init, test = f"random({rng.randint(0, 999)})", f"< {rng.randint(2, 7)}"
        src = "random"
    else:
        src = write_mask_file(p, rng, typ)
        init, test = "file(mask.raw)", "!= 0"
    p["arrays"][name] = {"type": typ, "init": init, "save": False, "role": "readonly", "mask": src}
    p["ro"].append(name)
    chosen = [k for k in cands if rng.random() < 0.6] or [rng.choice(cands)]
    for k in chosen:
        slo, shi = k.shrink
        pt = tuple([0] * dims)
        if rng.random() < 0.3:
            pt = tuple(rng.randint(-slo[d], shi[d]) for d in range(dims))
        lo = [max(0, -pt[d]) for d in range(dims)]
        hi = [max(0, pt[d]) for d in range(dims)]
        nonzero = pt != tuple([0] * dims)
        k.args.insert(rng.randint(0, len(k.args)), Arg(name, "read", lo, hi, [pt] if nonzero else [],
                                                       "points" if nonzero else "none"))
        k.mask_array = name
        alt = {out: other_terms(k, dims, rng) for out in k.writes
               if next(a for a in k.args if a.array == out).access == "write"}
        k.mask = (name, pt, test, alt)
    recount(p)


def add_boundaries(p, rng):
    """<boundary> frames: per array group and dimension, kinds drawn independently."""
    dims, size, every = p["dims"], p["size"], p["every"]
    scan_dims = {k.scan[0] for k in p["kernels"] if k.scan is not None}
    units = [list(names) for _, names in p["groups"]]
    grouped = {n for u in units for n in u}
    units += [[n] for n in p["arrays"] if n not in grouped]

    def halo_along(unit, d):
        return any(a.array in unit and a.access == "read" and (a.lo[d] or a.hi[d])
                   for k in p["kernels"] for a in k.args)

    def any_halo(unit):
        return any(halo_along(unit, d) for d in range(dims))

    free = []
    for d in range(dims):
        wide = every * max(p["step_lo"][d], p["step_hi"][d], p["grid_lo"][d], p["grid_hi"][d], 1)
        if d not in scan_dims and size[d] > 2 * wide + 1 and any(halo_along(u, d) for u in units):
            free.append(d)
    if not free:
        return
    bdims = [d for d in free if rng.random() < 0.6] or [rng.choice(free)]
    out = []
    for d in bdims:
        for u in units:
            if not (halo_along(u, d) or (any_halo(u) and rng.random() < 0.3)):
                continue
            integer = p["arrays"][u[0]]["type"] not in ("float", "double")
            kinds = ["periodic"] if every > 1 else ["periodic", "mirror", "copy", "value"]
            kind = rng.choice(kinds)
            if kind == "value":
                kind = f"value({rng.randint(0, 9)})" if integer else f"value({rng.choice(['0.25', '-0.5', '0.75', '0'])})"
            out.append((rng.choice(u), d, kind))
    p["boundaries"] = out
    # Along these, every array's frame is periodic (an implied one where none is given), and the
    # kernels compute its cells as images: a test of the global index wraps it (gen.kernel_code).
    p["periodic_dims"] = {d for _, d, kind in out if kind == "periodic"}


def add_features(p, feature_spec=None):
    """Draws the optional features into p (gen.generate's program), each from its own stream."""
    from gen import pick_type
    prob = probabilities(feature_spec)
    seed = p["seed"]
    p.setdefault("files", {})
    p.setdefault("boundaries", [])
    for k in p["kernels"]:
        k.scan = k.mask = k.stepw = None
    drawn = []
    for name, fn in [("scan", add_scan), ("stepw", lambda q, r: add_stepw(q, r, pick_type)),
                     ("mask", add_mask), ("boundary", add_boundaries)]:
        rng = random.Random(f"{seed}-{name}")
        if rng.random() < prob[name]:
            fn(p, rng)
            drawn.append(name)
    p["features"] = drawn


def describe(p):
    """The features' part of the summary line."""
    out = []
    for k in p["kernels"]:
        if k.scan is not None:
            out.append(f"scan {k.name} along {'xyz'[k.scan[0]]} {'forward' if k.scan[1] else 'backward'}")
        if k.stepw is not None:
            out.append(f"step writer {k.stepw[0]} in {k.name} ({k.stepw[1][0]})")
        if k.mask is not None:
            out.append(f"mask {k.mask[0]} in {k.name} at {k.mask[1]}")
    if p.get("boundaries"):
        out.append("boundaries " + " ".join(f"{a}:{'xyz'[d]}={kind}" for a, d, kind in p["boundaries"]))
    return "; ".join(out)


# ---------------------------------------------------------------------------------------------
# Kernel code


def stepw_cond(k, dims):
    """The C test of the cells a step-dependent writer updates (global indices gx, gy, gz)."""
    cond = k.stepw[1]
    if cond[0] == "every":
        return f"istep % {cond[1]} == {cond[2]}"
    if cond[0] == "wave":
        s = " + ".join(f"g{'xyz'[d]}" for d in range(dims))
        return f"({s} + 64) % {cond[1]} == istep % {cond[1]}"
    _, speed, start, fixed = cond
    parts = [f"gx == (istep * {speed} + {start}) % gnx"]
    for d in range(1, dims):
        if fixed[d] is not None:
            parts.append(f"g{'xyz'[d]} == {fixed[d]}")
    return " && ".join(parts)


def stepw_dims(k, dims):
    """The dimensions whose global index stepw_cond computes (none for every K-th step: unused
    variables and arguments are errors under the CUDA builds' -Werror)."""
    if k.stepw is None or k.stepw[1][0] == "every":
        return []
    return list(range(dims))  # a source plane casts the other dimensions' indices to void


def mask_cond(k, dims, index_expr):
    name, pt, test, _ = k.mask
    return f"{name}[{index_expr(pt, dims)}] {test}"
