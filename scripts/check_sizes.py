#!/usr/bin/env python3
"""Fails when a source file of runtime/ or generator/ is over 800 lines or a function in one is
over 150 (docs/architecture.md: the sizes the engine is kept to).

Usage: scripts/check_sizes.py [ROOT]   (default: the checkout this script is in)

A function is a brace block opened at namespace or class scope that is not itself a namespace,
class, struct, union, enum or an initialiser (`x = {...}`); its length runs from the first line
of its signature to its closing brace, lambdas and local classes inside included. Comments,
string and character literals (raw strings too) are skipped, so braces in them do not count.
The files are clang-formatted (tests/format_check.sh), which keeps this reading simple.
"""
import os
import re
import sys

MAX_FILE = 800
MAX_FUNCTION = 150
FOLDERS = ("runtime", "generator")
SUFFIXES = (".hpp", ".cpp", ".h", ".cu", ".cuh", ".cl")
SCOPE = re.compile(r"^(?:[\w:]+\s+)*?(namespace|class|struct|union|enum|extern)\b")


def code_only(text):
    """The text with comments, literals and preprocessor lines blanked (newlines kept)."""
    out, i, n = [], 0, len(text)
    line_start = True
    while i < n:
        c = text[i]
        if line_start and c == "#":  # a preprocessor line, continued by backslashes
            while i < n and not (text[i] == "\n" and text[i - 1] != "\\"):
                out.append("\n" if text[i] == "\n" else " ")
                i += 1
            continue
        if c == "\n":
            line_start = True
            out.append(c)
            i += 1
            continue
        if not c.isspace():
            line_start = False
        if text.startswith("//", i):
            while i < n and text[i] != "\n":
                i += 1
            continue
        if text.startswith("/*", i):
            end = text.find("*/", i + 2)
            end = n if end < 0 else end + 2
            out.append(re.sub(r"[^\n]", " ", text[i:end]))
            i = end
            continue
        m = re.match(r'R"([^()\\ ]{0,16})\(', text[i:i + 20])
        if m and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            close = ")" + m.group(1) + '"'
            end = text.find(close, i + len(m.group(0)))
            end = n if end < 0 else end + len(close)
            out.append('""' + re.sub(r"[^\n]", " ", text[i + 2:end]))
            i = end
            continue
        if c in "\"'":
            if c == "'" and i > 0 and text[i - 1].isalnum():  # a digit separator: 1'000
                out.append(" ")
                i += 1
                continue
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            out.append(c + " " * (j - i - 1) + c)
            i = j + 1
            continue
        out.append(c)
        i += 1
    return "".join(out)


def strip_template_heads(header):
    """`template <...>` clauses removed from a declaration's head."""
    while True:
        m = re.search(r"\btemplate\s*<", header)
        if not m:
            return header
        depth, j = 1, m.end()
        while j < len(header) and depth:
            depth += {"<": 1, ">": -1}.get(header[j], 0)
            j += 1
        header = header[:m.start()] + header[j:]


def top_level_equals(header):
    """Whether `header` has an `=` outside parentheses and angle brackets (an initialiser),
    `operator=` and comparison operators aside."""
    depth = 0
    h = re.sub(r"operator\s*[^\w\s(]*", "operator", header)
    for k, c in enumerate(h):
        if c in "([<":
            depth += 1
        elif c in ")]>":
            depth = max(0, depth - 1)
        elif c == "=" and depth == 0:
            before = h[k - 1] if k else ""
            after = h[k + 1] if k + 1 < len(h) else ""
            if before not in "=!<>" and after != "=":
                return True
    return False


def functions(code):
    """(first line, last line, name) of every function in `code`."""
    found = []
    stack = []  # per open brace: "scope", "function", "init" or "inner"
    header_start = 0  # where the text before the next brace began
    starts = []  # the line each function began at
    line = 1
    line_of = []
    for c in code:
        line_of.append(line)
        if c == "\n":
            line += 1
    for i, c in enumerate(code):
        if c in ";}":
            kind = stack.pop() if c == "}" and stack else None
            if kind == "function":
                first, name = starts.pop()
                found.append((first, line_of[i], name))
            if kind != "paren":
                header_start = i + 1
        elif c == "{":
            inside = any(k in ("function", "init") for k in stack)
            head = code[header_start:i]
            if not inside and head.count("(") > head.count(")"):
                stack.append("paren")  # a default argument's `{}`: still the signature
                continue
            if inside:
                stack.append("inner")
            else:
                header = strip_template_heads(code[header_start:i]).strip()
                if SCOPE.match(header):
                    stack.append("scope")
                elif top_level_equals(header):
                    stack.append("init")
                else:
                    stack.append("function")
                    at = header_start + len(code[header_start:i]) - len(
                        code[header_start:i].lstrip())
                    name = re.findall(r"([~\w:]+(?:operator\S*)?)\s*\(", header)
                    starts.append((line_of[at] if at < len(line_of) else line_of[i],
                                   name[0] if name else header[:40]))
            header_start = i + 1
    return found


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.dirname(
        os.path.abspath(__file__)))
    problems = []
    checked = 0
    for folder in FOLDERS:
        for base, _, names in os.walk(os.path.join(root, folder)):
            for name in sorted(names):
                if not name.endswith(SUFFIXES):
                    continue
                path = os.path.join(base, name)
                rel = os.path.relpath(path, root)
                text = open(path, encoding="utf-8").read()
                checked += 1
                lines = text.count("\n")
                if lines > MAX_FILE:
                    problems.append(f"{rel}: {lines} lines (at most {MAX_FILE})")
                for first, last, fn in functions(code_only(text)):
                    if last - first + 1 > MAX_FUNCTION:
                        problems.append(f"{rel}:{first}: {fn} is {last - first + 1} lines "
                                        f"(at most {MAX_FUNCTION})")
    for p in problems:
        print(p)
    print(f"check_sizes: {checked} files, {len(problems)} over the limits")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
