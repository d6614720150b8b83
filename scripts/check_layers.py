#!/usr/bin/env python3
"""Checks the layering rules of DESIGN.md against every #include in the tree.

    python3 scripts/check_layers.py          # exit 1 and one line per violation
    python3 scripts/check_layers.py --draw   # the folders of src/core, top floor
                                             # first, with what each includes

The build's include paths already stop a frontend, tool or backend from
reaching into src/core; this check also holds what include paths cannot:

- src/core/<folder> includes only folders below it in CORE_FLOORS (no loops);
  test_util/ is for tests only.
- Frontends (src/frontends), the binary (src/main) and tools (tools/) use
  include/ only through inferd/server.h and the header-only inferd/base/.
- Backends (backends/) use include/ only through inferd/backend.h and
  inferd/base/; what several share lives in backends/common/ (held to the
  same door), which they include as "common/<name>.h".
Unit tests (*_test.cc) may look inside the folder they test.
"""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# src/core's folders from the top floor down, in the order a request meets
# them; each may include only folders on a lower floor. src/README.md says
# what each one does.
CORE_FLOORS = [
    "api",         # the shells of both C ABIs: server.h and backend.h
    "server",      # admission: the server as a whole, the one submit path
    "lifecycle",   # which versions serve: load, reload, unload, poll
    "model",       # a loaded version: backend, instances, scheduler, warmup
    "scheduler",   # when and where requests run: queues, batching, ordering
    "rate_limiter",  # resource pools and turns shared by every model's instances
    "infer",       # request and response objects, validation, classification
    "cache",       # the response cache: keys, entries, LRU under a byte budget
    "backend",     # backend libraries: finding, opening, entry points
    "repository",  # model folders on disk and their version policy
    "config",      # config.pbtxt: parse, normalize, validate, JSON
    "trace",       # request traces and trace settings
    "stats",       # per-model statistics and their JSON/Prometheus text
    "timing",      # the injectable clock and the queue sweeper
    "common",      # status as a C error, logging, datatypes
]
TEST_ONLY = {"test_util"}

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
SOURCE = (".h", ".cc")


def sources(top):
    for folder, _, files in os.walk(os.path.join(ROOT, top)):
        for name in files:
            if name.endswith(SOURCE):
                path = os.path.join(folder, name)
                yield os.path.relpath(path, ROOT), open(path, encoding="utf-8").read()


def includes(text):
    return INCLUDE.findall(text)


def check_core(problems, edges):
    for path, text in sources("src/core"):
        parts = path.split(os.sep)
        folder = parts[2]
        is_test = path.endswith("_test.cc") or folder in TEST_ONLY
        if folder not in CORE_FLOORS and folder not in TEST_ONLY:
            problems.append(f"{path}: folder '{folder}' has no floor in scripts/check_layers.py")
            continue
        for inc in includes(text):
            if not inc.startswith("core/"):
                continue
            target = inc.split("/")[1]
            if target == folder:
                continue
            if target in TEST_ONLY:
                if not is_test:
                    problems.append(f"{path}: includes test-only {inc}")
                continue
            if is_test:
                continue
            edges.setdefault(folder, {}).setdefault(target, 0)
            edges[folder][target] += 1
            if target not in CORE_FLOORS or CORE_FLOORS.index(target) <= CORE_FLOORS.index(folder):
                problems.append(f"{path}: core/{folder} includes {inc}, which is not on a lower "
                                f"floor (scripts/check_layers.py CORE_FLOORS)")


def check_door(problems, top, allowed_public):
    """Files under `top` may include `allowed_public` headers of include/ and
    inferd/base/, never src/core (their own folders and libraries are theirs)."""
    for path, text in sources(top):
        is_test = path.endswith("_test.cc")
        for inc in includes(text):
            if inc.startswith("inferd/"):
                if inc in allowed_public or inc.startswith("inferd/base/"):
                    continue
                problems.append(f"{path}: includes {inc}; only {' or '.join(allowed_public)} "
                                f"and inferd/base/ may be used here")
            elif inc.startswith("core/"):
                if not is_test or top != "src/frontends":
                    problems.append(f"{path}: includes core header {inc}; use "
                                    f"{allowed_public[0]} (or the header-only inferd/base/)")
                else:
                    problems.append(f"{path}: a frontend test includes core header {inc}")


def draw(edges):
    print("src/core, top floor first (folder -> folders it includes):")
    for folder in CORE_FLOORS:
        below = edges.get(folder, {})
        targets = ", ".join(t for t in CORE_FLOORS if t in below) or "-"
        print(f"  {folder:<11} -> {targets}")


def main():
    problems, edges = [], {}
    check_core(problems, edges)
    check_door(problems, "src/frontends", ["inferd/server.h"])
    check_door(problems, "src/main", ["inferd/server.h"])
    check_door(problems, "tools", ["inferd/server.h"])
    for backend in sorted(os.listdir(os.path.join(ROOT, "backends"))):
        if os.path.isdir(os.path.join(ROOT, "backends", backend)):
            check_door(problems, os.path.join("backends", backend), ["inferd/backend.h"])
    if "--draw" in sys.argv:
        draw(edges)
    for problem in problems:
        print(problem)
    print(f"layers: {len(problems)} violation(s)" if problems else "layers: ok")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
