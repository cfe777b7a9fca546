#!/usr/bin/env python3
"""The runtime's layers, as its folders show them (docs/architecture.md, "Layers"):

  runtime/include/stepgen/plan/         geometry and plans: the C++ standard library only
  runtime/include/stepgen/description/  what a generated program describes: plan/ and itself
  runtime/include/stepgen/exec/         engines, backends, mains, I/O: anything

and the generator (generator/) includes plan/ and description/ only: it plans a program with the
code the program plans with, and never compiles the machinery that runs it. One file is the
exception, by design: generator/checks/probe_check.cpp, `stepgen check --probe`, runs the
programs' own kernel probe (exec/probe.hpp) on PoCL.
Usage: layers_test.py SOURCE_DIR
"""
import pathlib
import re
import sys

root = pathlib.Path(sys.argv[1])
runtime = root / "runtime/include/stepgen"
include = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]', re.M)
exceptions = {"generator/checks/probe_check.cpp": {"stepgen/exec/probe.hpp"}}
failures = []


def includes(path):
    return include.findall(path.read_text(encoding="utf-8"))


def check(path, allowed_layers, std_only):
    rel = path.relative_to(root).as_posix()
    for kind, name in includes(path):
        if kind == "<":
            # The standard library has no ".h" headers: <unistd.h>, <CL/cl.h>, <mpi.h> are not it.
            if std_only and name.endswith(".h"):
                failures.append(f"{rel}: includes <{name}>, not of the C++ standard library")
            continue
        if not name.startswith("stepgen/"):
            continue
        layer = name.split("/")[1]
        if layer not in allowed_layers and name not in exceptions.get(rel, set()):
            failures.append(f"{rel}: includes \"{name}\" ({layer}/), above its layer")


counts = {}
for layer, allowed in {"plan": {"plan"}, "description": {"plan", "description"}}.items():
    headers = sorted((runtime / layer).rglob("*.hpp"))
    counts[layer] = len(headers)
    for h in headers:
        check(h, allowed, std_only=True)
top = sorted(p.name for p in runtime.iterdir() if p.is_file())
if top:
    failures.append(f"runtime/include/stepgen/ holds files outside the layers' folders: {top}")
sources = sorted(p for p in (root / "generator").rglob("*") if p.suffix in (".cpp", ".hpp"))
for s in sources:
    check(s, {"plan", "description"}, std_only=False)
counts["generator"] = len(sources)
for name in sorted(exceptions):
    if not (root / name).exists():
        failures.append(f"{name}: the listed exception no longer exists: drop it from this test")

for f in failures:
    print("FAIL:", f)
if counts["plan"] < 10 or counts["description"] < 3 or counts["generator"] < 50:
    print("FAIL: too few files found:", counts)
    sys.exit(1)
print(f"layers: {counts['plan']} plan/ and {counts['description']} description/ headers, "
      f"{counts['generator']} generator sources checked; {len(failures)} violations")
sys.exit(1 if failures else 0)
