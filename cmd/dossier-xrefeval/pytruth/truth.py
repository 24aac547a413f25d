"""Write the true call edges of a Python repository, in the truth format of
cmd/dossier-xrefeval, from jedi's own inference (goto, imports followed):

    {"repo", "commit", "lang": "python", "defs": [{path, line, end, name, container, kind}],
     "edges": [{caller, callee, line}]}

    python3 truth.py --repo DIR [--name owner/name] [--path SRC]... [-o OUT.json]

It needs jedi (Debian: python3-jedi) and nothing from the network: the
repository's dependencies need not be installed, a callee outside it never
counts. --path sets the directories the repository's modules are imported
from (default: its src/ when there is one, and the repository itself);
they come before the standard library, and an installed copy of the
repository (site-packages) is never read in their place.

Definitions are what a dossier selector names from outside a function
body: top-level functions and classes, those under a module-level if, try
or with, methods (functions directly in a class body, container the
innermost class). A function or class inside a function is a local.

An edge is a call (ast.Call) whose called name jedi's goto takes, through
imports and inferred receivers, to one of those definitions: a class called
is an edge to the class (dossier names no constructor in Python). The caller
is the innermost definition around the call that is a function or method;
calls in lambdas and nested functions count for it. Decorators and calls at
module or class-body level have no caller and are left out. The @overload
stubs of a function are no definitions: a call jedi takes to one is an edge
to the implementation.
"""

import argparse
import ast
import json
import os
import subprocess
import sys

import jedi


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repo", required=True)
    ap.add_argument("--name")
    ap.add_argument("--path", action="append", default=[])
    ap.add_argument("-o", dest="out")
    a = ap.parse_args()
    root = os.path.abspath(a.repo)
    paths = [os.path.join(root, p) for p in a.path] or (
        [os.path.join(root, "src")] if os.path.isdir(os.path.join(root, "src")) else []) + [root]
    # The repository's own modules, then the standard library: never an
    # installed copy of the repository (site-packages) in its place.
    stdlib = [p for p in sys.path if p and "site-packages" not in p and "dist-packages" not in p]
    project = jedi.Project(root, sys_path=paths + stdlib, smart_sys_path=False, load_unsafe_extensions=False)
    files = tracked(root)
    defs, ids, trees = [], {}, {}
    for rel in files:
        try:
            with open(os.path.join(root, rel), encoding="utf-8") as f:
                src = f.read()
            tree = ast.parse(src, filename=rel)
        except (SyntaxError, UnicodeDecodeError, ValueError) as e:
            print(f"{rel}: skipped: {e}", file=sys.stderr)
            continue
        trees[rel] = (src, tree)
        collect(rel, tree.body, "", defs, ids)
    edges = {}
    unresolved = 0
    for n, rel in enumerate(trees):
        src, tree = trees[rel]
        script = jedi.Script(src, path=os.path.join(root, rel), project=project)
        lines = src.splitlines()
        for caller, call, line, col in calls(rel, tree.body, ids):
            # ast counts UTF-8 bytes, jedi characters.
            col = len(lines[line - 1].encode()[:col].decode(errors="ignore"))
            try:
                names = script.goto(line, col, follow_imports=True)
            except Exception as e:  # jedi gives up on some inputs: no edge
                print(f"{rel}:{line}: jedi: {e}", file=sys.stderr)
                names = []
            hit = False
            for nm in names:
                if nm.module_path is None or nm.line is None:
                    continue
                p = os.path.relpath(str(nm.module_path), root)
                callee = ids.get((p, nm.line, nm.name))
                if callee is not None:
                    hit = True
                    edges.setdefault((caller, callee), line)
            unresolved += not hit
        if n % 20 == 19:
            print(f"{n + 1}/{len(trees)} files, {len(edges)} edges", file=sys.stderr)
    print(f"{len(trees)} files, {len(defs)} defs, {len(edges)} edges ({unresolved} calls reach no definition of the repository)",
          file=sys.stderr)
    out = {"repo": a.name or os.path.basename(root), "commit": git(root, "rev-parse", "HEAD").strip(), "lang": "python",
           "defs": defs, "edges": [{"caller": c, "callee": d, "line": l} for (c, d), l in sorted(edges.items())]}
    w = open(a.out, "w") if a.out else sys.stdout
    json.dump(out, w)
    w.write("\n")


def tracked(root):
    return sorted(p for p in git(root, "ls-files", "-z", "--", "*.py").split("\0") if p)


def git(root, *args):
    return subprocess.run(["git", "-C", root, *args], capture_output=True, text=True, check=True).stdout


# Statements whose bodies are still the enclosing scope (module or class).
COMPOUND = (ast.If, ast.Try, ast.With, ast.AsyncWith, ast.For, ast.AsyncFor, ast.While) + (
    (ast.TryStar,) if hasattr(ast, "TryStar") else ())


def bodies(stmt):
    for field in ("body", "orelse", "finalbody"):
        yield from getattr(stmt, field, [])
    for h in getattr(stmt, "handlers", []):
        yield from h.body


def collect(rel, body, container, defs, ids, stubs=None):
    """Adds the definitions of a module or class body. The @overload stubs
    of a function are no definitions of their own: what jedi finds on them
    is the implementation that follows (the one definition that runs)."""
    stubs = [] if stubs is None else stubs
    for s in body:
        if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)) and is_overload(s):
            stubs.append((s.lineno, s.name))
            continue
        if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for line, name in [st for st in stubs if st[1] == s.name]:
                ids[(rel, line, name)] = len(defs)
                stubs.remove((line, name))
        if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            kind = "class" if isinstance(s, ast.ClassDef) else ("method" if container else "function")
            ids[(rel, s.lineno, s.name)] = len(defs)
            d = {"path": rel, "line": s.lineno, "name": s.name, "container": container, "kind": kind}
            if kind != "class":
                # The lines pick one of several same-named definitions
                # (a property's getter and setter), as Java's overloads.
                d["end"] = s.end_lineno
            defs.append(d)
            if isinstance(s, ast.ClassDef):
                collect(rel, s.body, s.name, defs, ids)
        elif isinstance(s, COMPOUND):
            collect(rel, list(bodies(s)), container, defs, ids, stubs)


def is_overload(f):
    for d in f.decorator_list:
        if isinstance(d, ast.Name) and d.id == "overload" or isinstance(d, ast.Attribute) and d.attr == "overload":
            return True
    return False


def calls(rel, body, ids):
    """Yields (caller, call, line, column of the called name) for the calls
    inside the functions and methods of a module or class body."""
    for s in body:
        if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)):
            if is_overload(s):
                continue  # a stub: no body that runs
            caller = ids[(rel, s.lineno, s.name)]
            for part in [s.args, s.returns] + s.body:
                if part is None:
                    continue
                for n in ast.walk(part):
                    if isinstance(n, ast.Call):
                        pos = name_pos(n.func)
                        if pos:
                            yield caller, n, pos[0], pos[1]
        elif isinstance(s, ast.ClassDef):
            yield from calls(rel, s.body, ids)
        elif isinstance(s, COMPOUND):
            yield from calls(rel, list(bodies(s)), ids)


def name_pos(f):
    """The line and column of the name a call calls: f() or x.f()."""
    if isinstance(f, ast.Name):
        return f.lineno, f.col_offset
    if isinstance(f, ast.Attribute) and f.end_lineno is not None:
        return f.end_lineno, f.end_col_offset - len(f.attr)
    return None


if __name__ == "__main__":
    main()
