#!/usr/bin/env python3
"""Builds inferd's OCI images without Docker or a registry (`make image`).

The root filesystem is the runtime closure of what `make build` produced,
taken from this Debian 12 machine: the server, its frontend modules, the
backends and tools of the variant, every shared library they load as ld.so
resolves it here (Debian's, or third_party/'s ONNX Runtime, XGBoost, ... by
following each binary's real dependencies: no list of libraries to keep in
step), and for the Python backend Debian's python3 with numpy, taken from the
files of those Debian packages. No shell, no package manager. The dpkg records
of every Debian package a file came from go to /var/lib/dpkg/status.d/ (as
distroless images do) so that image scanners see the package versions.

umoci packs that tree as two layers (the system's files, then /opt/inferd)
and writes the configuration (non-root user, entrypoint, labels); the OCI
layout is saved as build/image/inferd-<variant>.oci.tar, which `skopeo copy
oci-archive:...` copies into podman's or Docker's storage or to a registry.
docs/deploying.md describes the image.
"""
import argparse
import datetime
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import closure

ROOT = Path(__file__).resolve().parents[2]
PREFIX = "opt/inferd"  # the build folder's layout: inferd, modules, backends/, tools/
USER_ID = 1000
# Backends every variant carries: small, and examples/models uses them.
BASE_BACKENDS = ["identity", "repeat", "accumulate", "onnxruntime"]
VARIANTS = {
    # The default image: ONNX Runtime, the Python backend with numpy, fil.
    "default": {"backends": BASE_BACKENDS + ["python", "fil"], "python": True},
    # ONNX Runtime alone (no Python): the smallest useful image.
    "onnx": {"backends": BASE_BACKENDS, "python": False},
    # ONNX Runtime and llama.cpp (GGUF language models behind the OpenAI API):
    # the default image has no room for llama.cpp's 30 MB within its 250 MB.
    "llm": {"backends": BASE_BACKENDS + ["llamacpp"], "python": False},
    # The default image, llama.cpp and LibTorch (Debian's libtorch 1.13, CPU).
    "torch": {"backends": BASE_BACKENDS + ["python", "fil", "llamacpp", "pytorch"],
              "python": True},
}
TOOLS = ["inferd-check-config", "inferd-loadgen", "inferd-tune"]
PORTS = ["8000/tcp", "8001/tcp", "8002/tcp"]


def run(*args, **kwargs):
    return subprocess.run(args, check=True, text=True, **kwargs)


def copy_server(build: Path, rootfs: Path, backends: list[str]) -> list[Path]:
    """Copies the server, its modules, the backends and tools; returns the ELF files."""
    dest = rootfs / PREFIX
    (dest / "backends").mkdir(parents=True)
    (dest / "tools").mkdir()
    shutil.copy2(build / "inferd", dest / "inferd")
    for module in sorted(build.glob("libinferd_*_frontend.so")):
        shutil.copy2(module, dest / module.name)
    for name in backends:
        source = build / "backends" / name
        if not (source / f"libinferd_{name}.so").exists():
            sys.exit(f"build_image: {source}/libinferd_{name}.so is missing: run make build "
                     "(a backend turned off in the build: leave its variant out of "
                     "IMAGE_VARIANTS)")
        (dest / "backends" / name).mkdir()
        for item in sorted(source.rglob("*")):
            # The backend's libraries, those it opens beside itself at run time
            # (which ldd cannot see: fil's lib_lightgbm.so, and the bundled
            # XGBoost in xgboost/lib with its OpenMP in xgboost_cpu.libs, where
            # their RPATH looks), and the Python stub's files; not its tests.
            relative = item.relative_to(source)
            if "CMakeFiles" in relative.parts or not item.is_file():
                continue
            if ".so" in item.name or item.suffix == ".py":
                target = dest / "backends" / name / relative
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(item, target)
    for tool in TOOLS:
        if not (build / "tools" / tool).exists():
            sys.exit(f"build_image: {build}/tools/{tool} is missing: run make build")
        shutil.copy2(build / "tools" / tool, dest / "tools" / tool)
    return [p for p in sorted(dest.rglob("*")) if p.is_file() and closure.is_elf(p)]


def write_etc(rootfs: Path) -> None:
    """The few files a program expects in /etc, and the folders runtimes mount on."""
    etc = rootfs / "etc"
    etc.mkdir(exist_ok=True)
    (etc / "passwd").write_text(
        "root:x:0:0:root:/root:/usr/sbin/nologin\n"
        f"inferd:x:{USER_ID}:{USER_ID}:inferd:/tmp:/usr/sbin/nologin\n"
        "nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n")
    (etc / "group").write_text(f"root:x:0:\ninferd:x:{USER_ID}:\nnogroup:x:65534:\n")
    (etc / "nsswitch.conf").write_text("passwd: files\ngroup: files\nhosts: files dns\n")
    (etc / "hosts").write_text("127.0.0.1 localhost\n::1 localhost ip6-localhost\n")
    for folder, mode in (("tmp", 0o1777), ("models", 0o755), ("proc", 0o555), ("sys", 0o555),
                         ("dev", 0o755), ("root", 0o700)):
        (rootfs / folder).mkdir(exist_ok=True)
        os.chmod(rootfs / folder, mode)


def link_commands(rootfs: Path) -> None:
    """inferd, tritonserver (Triton's launch lines run unchanged) and the tools on PATH."""
    bin_dir = rootfs / "usr/bin"
    bin_dir.mkdir(parents=True, exist_ok=True)
    for name in ("inferd", "tritonserver"):
        os.symlink(f"/{PREFIX}/inferd", bin_dir / name)
    for tool in TOOLS:
        os.symlink(f"/{PREFIX}/tools/{tool}", bin_dir / tool)


def build_entrypoint(rootfs: Path) -> None:
    """The entrypoint: Triton's flags go to inferd; a command (tritonserver ...) runs as given."""
    out = rootfs / PREFIX / "entrypoint"
    source = Path(__file__).with_name("entrypoint.c")
    run("cc", "-O2", "-Wall", "-Wextra", "-Werror", "-o", str(out), str(source))
    run("strip", str(out))


def build_rootfs(build: Path, rootfs: Path, variant: dict) -> None:
    rootfs.mkdir(parents=True)
    for name in ("bin", "sbin", "lib", "lib64"):  # Debian 12's merged /usr
        (rootfs / "usr" / name).mkdir(parents=True, exist_ok=True)
        os.symlink(f"usr/{name}", rootfs / name)
    elves = copy_server(build, rootfs, variant["backends"])
    build_entrypoint(rootfs)
    elves.append(rootfs / PREFIX / "entrypoint")
    copier = closure.Copier(rootfs, f"/{PREFIX}/lib")
    if variant["python"]:
        elves += closure.copy_python(copier)
    copier.copy_closure(elves)
    # What came along beside a library (a folder's other libraries, which it
    # may open at run time: ggml's CPU variants, ONNX Runtime's providers)
    # needs its own closure too.
    own_lib_dir = rootfs / PREFIX / "lib"
    if own_lib_dir.is_dir():
        copier.copy_closure([p for p in sorted(own_lib_dir.iterdir())
                             if p.is_file() and not p.is_symlink() and closure.is_elf(p)])
    write_etc(rootfs)
    link_commands(rootfs)
    copier.finish()
    # One time for every file, the source commit's: the same commit packs the
    # same layer. Set before byte-compiling too, since each .pyc records its
    # source's time (and a stub, on a read-only root, would compile again
    # in memory each start were they to differ).
    set_times(rootfs, source_epoch())
    if variant["python"]:
        closure.compile_python(rootfs, rootfs / PREFIX / "backends/python")
        set_times(rootfs, source_epoch())


def set_times(rootfs: Path, epoch: int) -> None:
    for folder, dirs, files in os.walk(rootfs):
        for name in dirs + files:
            os.utime(os.path.join(folder, name), (epoch, epoch), follow_symlinks=False)
    os.utime(rootfs, (epoch, epoch))


def git(*args: str) -> str:
    # safe.directory: through sudo, git would refuse a checkout another user owns.
    return subprocess.run(["git", "-c", f"safe.directory={ROOT}", "-C", str(ROOT), *args],
                          capture_output=True, text=True).stdout.strip()


def source_epoch() -> int:
    """SOURCE_DATE_EPOCH, else the time of the commit built."""
    return int(os.environ.get("SOURCE_DATE_EPOCH") or git("log", "-1", "--format=%ct") or 0)


def iso_time(epoch: int) -> str:
    return datetime.datetime.fromtimestamp(epoch, datetime.timezone.utc).strftime(
        "%Y-%m-%dT%H:%M:%SZ")


def project_version() -> str:
    for line in (ROOT / "CMakeLists.txt").read_text().splitlines():
        if line.startswith("project(inferd VERSION "):
            return line.split()[2]
    sys.exit("build_image: no project(inferd VERSION ...) in CMakeLists.txt")


def image_source() -> str:
    """Where the source is: $INFERD_IMAGE_SOURCE, else the URL of git's remote 'origin'."""
    return os.environ.get("INFERD_IMAGE_SOURCE") or git("remote", "get-url", "origin")


def labels(variant_name: str) -> dict:
    revision = git("rev-parse", "HEAD")
    source = image_source()
    result = {
        "org.opencontainers.image.title": "inferd" + ("" if variant_name == "default"
                                                     else f"-{variant_name}"),
        "org.opencontainers.image.description":
            "inferd: a Triton-compatible inference server (KServe v2 over HTTP and gRPC), CPU",
        "org.opencontainers.image.version": project_version(),
        "org.opencontainers.image.created": iso_time(source_epoch()),
    }
    if not revision:
        sys.exit("build_image: no git commit to name in org.opencontainers.image.revision "
                 f"({ROOT} is no git checkout)")
    result["org.opencontainers.image.revision"] = revision
    if source:
        result["org.opencontainers.image.source"] = source
    else:
        print("build_image: no INFERD_IMAGE_SOURCE and no git remote 'origin': "
              "the image has no org.opencontainers.image.source label", file=sys.stderr)
    if git("status", "--porcelain", "--untracked-files=no"):
        print("build_image: the working tree has uncommitted changes; "
              f"the revision label names {revision[:12]}", file=sys.stderr)
    return result


def pack(rootfs: Path, layout: Path, tag: str, variant_name: str) -> None:
    image = f"{layout}:{tag}"
    run("umoci", "init", "--layout", str(layout))
    run("umoci", "new", "--image", image)
    created = iso_time(source_epoch())
    # Two layers: the system's libraries and Python, which change only with
    # Debian's packages, then /opt/inferd, which changes with each commit: a
    # node that has the first pulls only the second.
    app = rootfs.parent / "app"
    (rootfs / PREFIX).rename(app)
    os.utime(rootfs / PREFIX.split("/")[0], (source_epoch(), source_epoch()))
    run("umoci", "insert", "--image", image, "--history.created", created,
        "--history.comment", "Debian 12 libraries and python3 that inferd loads",
        str(rootfs), "/")
    run("umoci", "insert", "--image", image, "--history.created", created,
        "--history.comment", f"inferd {project_version()}", str(app), f"/{PREFIX}")
    config = ["--config.user", f"{USER_ID}:{USER_ID}", "--config.workingdir", "/",
              "--config.entrypoint", f"/{PREFIX}/entrypoint",
              "--config.cmd", "--model-repository=/models",
              "--config.env", "PATH=/usr/bin:/bin",
              # No .pyc written beside model.py files on a read-only mount.
              "--config.env", "PYTHONDONTWRITEBYTECODE=1",
              "--config.env", "HOME=/tmp",
              "--config.stopsignal", "SIGTERM",
              "--architecture", "amd64", "--os", "linux",
              "--created", created, "--history.created", created,
              "--history.comment", "inferd configuration"]
    for port in PORTS:
        config += ["--config.exposedports", port]
    for key, value in labels(variant_name).items():
        config += ["--config.label", f"{key}={value}", "--manifest.annotation", f"{key}={value}"]
    run("umoci", "config", "--image", image, *config)
    run("umoci", "gc", "--layout", str(layout))


def archive(layout: Path, out: Path) -> None:
    tmp = out.with_suffix(".tmp")
    run("tar", "--sort=name", "--owner=0", "--group=0", "--numeric-owner",
        f"--mtime=@{source_epoch()}", "-C", str(layout), "-cf", str(tmp), ".")
    tmp.rename(out)


def tree_size(rootfs: Path) -> int:
    total = 0
    for path in rootfs.rglob("*"):
        st = path.lstat()
        if stat.S_ISREG(st.st_mode):
            total += st.st_size
    return total


def build_variant(build: Path, out_dir: Path, name: str) -> None:
    work = out_dir / f"work-{name}"
    shutil.rmtree(work, ignore_errors=True)
    rootfs, layout = work / "rootfs", work / "layout"
    build_rootfs(build, rootfs, VARIANTS[name])
    tag = project_version() + ("" if name == "default" else f"-{name}")
    size = tree_size(rootfs)
    pack(rootfs, layout, tag, name)
    out = out_dir / f"inferd-{name}.oci.tar"
    archive(layout, out)
    shutil.rmtree(work)
    print(f"build_image: {out.relative_to(ROOT) if out.is_relative_to(ROOT) else out}: "
          f"{size / 1e6:.0f} MB uncompressed, {out.stat().st_size / 1e6:.0f} MB archive, "
          f"tag {tag}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build-dir", type=Path, default=ROOT / "build")
    parser.add_argument("--out-dir", type=Path, default=None)
    parser.add_argument("variants", nargs="*", default=list(VARIANTS), choices=list(VARIANTS))
    args = parser.parse_args()
    build = args.build_dir.resolve()
    if not (build / "inferd").is_file():
        sys.exit(f"build_image: {build}/inferd is missing: run make build")
    out_dir = (args.out_dir or build / "image").resolve()
    out_dir.mkdir(parents=True, exist_ok=True)
    for name in args.variants:
        build_variant(build, out_dir, name)


if __name__ == "__main__":
    main()
