#!/usr/bin/env python3
"""Checks the layering rules of DESIGN.md against every #include in the tree.

    python3 scripts/check_layers.py          # exit 1 and one line per violation
    python3 scripts/check_layers.py --draw   # the folders of src/core, top floor
                                             # first, with what each includes
    python3 scripts/check_layers.py --root DIR   # check another tree (the test's)

scripts/layers.json lists the parts (the core, each frontend, main, each tool,
each backend, the public headers, include/inferd/base) and the arrows allowed
between them; every other arrow is forbidden. Each #include, quoted or angle,
plain or relative ("../../core/..."), is resolved to a file as a compiler
would: a quoted one first beside the including file, then in the part's
include roots; one that resolves there to nothing is still looked for in every
search root of layers.json, so that an include the build happens to refuse (or
would accept under a wider include path) is reported rather than missed.
Includes that resolve to no file of the tree (system and third-party headers)
are not arrows.

Inside src/core, core_floors orders the folders top floor first: a folder
includes only folders below it (no loops), test_util/ is for tests only, and
unit tests (*_test.cc) may look inside any folder.
"""
import fnmatch
import json
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LAYERS = os.path.join("scripts", "layers.json")

INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*([<"])([^>"]+)[>"]', re.M)
SOURCE = (".h", ".hpp", ".cc", ".cpp", ".c", ".inc")


class Layers:
    """layers.json, with 'folder/*' parts made one per folder of the tree."""

    def __init__(self, root):
        self.root = root
        with open(os.path.join(root, LAYERS), encoding="utf-8") as f:
            spec = json.load(f)
        self.search_roots = spec["search_roots"]
        self.floors = spec["core_floors"]
        self.test_only = set(spec["core_test_only"])
        self.skip = set(spec["skip"])
        self.parts = {}      # name -> part
        self.by_path = {}    # repository path -> part name
        patterns = []
        for part in spec["parts"]:
            for path in part["paths"]:
                if path.endswith("/*"):
                    patterns.append((path[:-2], part))
                else:
                    self._add(part["name"], path, part)
        for folder, part in patterns:
            top = os.path.join(root, folder)
            for name in sorted(os.listdir(top)) if os.path.isdir(top) else []:
                path = f"{folder}/{name}"
                if os.path.isdir(os.path.join(root, path)) and path not in self.by_path:
                    self._add(f"{part['name']}:{name}", path, part)
        for name, part in self.parts.items():
            for target in part["may_include"]:
                if not self._known(target):
                    raise ValueError(f"{LAYERS}: part {name} may include unknown part {target}")

    def _add(self, name, path, part):
        self.parts.setdefault(name, dict(part, name=name, family=part["name"]))
        self.by_path[path] = name

    def _known(self, name):
        return any(p["family"] == name or n == name for n, p in self.parts.items())

    def part_of(self, path):
        """The part holding repository path `path` (longest match), or None."""
        best = None
        for prefix, name in self.by_path.items():
            if path == prefix or path.startswith(prefix + "/"):
                if best is None or len(prefix) > len(best[0]):
                    best = (prefix, name)
        return best[1] if best else None

    def allows(self, source, target):
        if source == target:
            return True
        allowed = self.parts[source]["may_include"]
        return target in allowed or self.parts[target]["family"] in allowed


def sources(root, skip):
    for folder, dirs, files in os.walk(root):
        rel = os.path.relpath(folder, root)
        dirs[:] = sorted(d for d in dirs if not (rel == "." and (d in skip or d.startswith("build"))))
        for name in sorted(files):
            if name.endswith(SOURCE):
                path = os.path.normpath(os.path.join(rel, name)).replace(os.sep, "/")
                with open(os.path.join(folder, name), encoding="utf-8", errors="replace") as f:
                    yield path, f.read()


def inside(root, path):
    """`path` (absolute) as a repository path if it is a file of the tree."""
    rel = os.path.relpath(os.path.normpath(path), root)
    if rel.startswith("..") or not os.path.isfile(path):
        return None
    return rel.replace(os.sep, "/")


def resolve(layers, path, kind, name, part):
    """The repository path an include of `name` from `path` reaches, or None."""
    root = layers.root
    tries = []
    if kind == '"':
        tries.append(os.path.join(root, os.path.dirname(path), name))
    own = layers.parts[part]["include_roots"] if part else []
    for folder in own + [r for r in layers.search_roots if r not in own]:
        tries.append(os.path.join(root, folder, name))
    for candidate in tries:
        found = inside(root, candidate)
        if found:
            return found
    return None


def core_folder(path):
    """The src/core folder holding `path` ("" for a file directly in src/core)."""
    parts = path.split("/")
    return parts[2] if len(parts) > 3 else ""


def check_floor(layers, path, target, problems, edges):
    """An include inside src/core: only from a floor to a lower floor."""
    folder, into = core_folder(path), core_folder(target)
    if into == folder or folder not in layers.floors + sorted(layers.test_only):
        return
    is_test = path.endswith("_test.cc") or folder in layers.test_only
    if into in layers.test_only:
        if not is_test:
            problems.append(f"{path}: includes test-only {target}")
        return
    if is_test:
        return
    edges.setdefault(folder, {}).setdefault(into, 0)
    edges[folder][into] += 1
    if into not in layers.floors or layers.floors.index(into) <= layers.floors.index(folder):
        problems.append(f"{path}: core/{folder} includes {target}, which is not on a lower "
                        f"floor ({LAYERS} core_floors)")


def check_arrow(layers, path, part, include, target, problems, edges):
    """One include of `path` (in `part`) that reaches `target`, a file of the tree."""
    into = layers.part_of(target)
    if into is None:
        problems.append(f"{path}: includes {target}, which belongs to no part of {LAYERS}")
    elif not layers.allows(part, into):
        allowed = ", ".join(layers.parts[part]["may_include"]) or "nothing"
        problems.append(f"{path}: #include {include} reaches {target}: {part} -> {into} is "
                        f"not allowed ({LAYERS}: {part} may include {allowed})")
    elif into == part == "core" and path.startswith("src/core/"):
        check_floor(layers, path, target, problems, edges)


def check_file(layers, path, text, problems, edges):
    part = layers.part_of(path)
    if part is None:
        problems.append(f"{path}: belongs to no part of {LAYERS}")
        return
    folder = core_folder(path)
    if part == "core" and folder not in layers.floors + sorted(layers.test_only):
        problems.append(f"{path}: src/core folder '{folder}' has no floor in {LAYERS}")
    for kind, name in INCLUDE.findall(text):
        target = resolve(layers, path, kind, name, part)
        if target and target != path and target.split("/")[0] not in layers.skip:
            include = f"<{name}>" if kind == "<" else f'"{name}"'
            check_arrow(layers, path, part, include, target, problems, edges)


def check(root):
    """(problems, core edges) for the tree at `root`."""
    layers = Layers(root)
    problems, edges = [], {}
    for path, text in sources(root, layers.skip):
        check_file(layers, path, text, problems, edges)
    return problems, edges


def draw(floors, edges):
    print("src/core, top floor first (folder -> folders it includes):")
    for folder in floors:
        below = edges.get(folder, {})
        targets = ", ".join(t for t in floors if t in below) or "-"
        print(f"  {folder:<12} -> {targets}")


def main(argv):
    root = ROOT
    if "--root" in argv:
        root = os.path.abspath(argv[argv.index("--root") + 1])
    problems, edges = check(root)
    problems = list(dict.fromkeys(problems))
    if "--draw" in argv:
        draw(Layers(root).floors, edges)
    for problem in problems:
        print(problem)
    print(f"layers: {len(problems)} violation(s)" if problems else "layers: ok")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
