"""The runtime closure of ELF files, copied from this machine into an image's root filesystem.

A library keeps the path ld.so found it at (its folder's real path, so that
Debian 12's /lib -> usr/lib holds in the image too), each symbolic link on
the way copied as a link: sonames and /etc/alternatives (libblas.so.3) resolve
in the image as here. A library outside the system folders (third_party/, a
RUNPATH into another checkout) goes to one folder of the image's own, which
/etc/ld.so.conf and the ld.so.cache of the image name.
"""
import os
import re
import shutil
import subprocess
from pathlib import Path

SYSTEM_PREFIXES = ("/usr/", "/lib/", "/lib64/", "/etc/alternatives/")
LDD_LINE = re.compile(r"^\s*(\S+)(?: => (\S+|not found))? \(0x[0-9a-f]+\)$|^\s*(\S+) => not found$")

# Debian's python3 for the Python backend's stubs: these packages' files, less
# what a server never runs (tests, IDLE, build files, terminals, databases).
PYTHON_PACKAGES = ["python3-minimal", "python3.11-minimal", "libpython3.11-minimal",
                   "libpython3.11-stdlib", "python3-numpy"]
PYTHON_SKIP = re.compile(
    r"^/usr/(share|include|lib/python3\.11/dist-packages)/"
    r"|^/usr/bin/(f2py|dh_numpy|py3clean|py3compile|pydoc|python3\.11-)"
    r"|^/usr/lib/python3\.11/(test|idlelib|turtledemo|ensurepip|lib2to3|pydoc_data|tkinter"
    r"|config-3\.11-[^/]+)/"
    r"|/tests?/|/__pycache__/|\.pyi$"
    r"|/lib-dynload/(_curses|_curses_panel|readline|_dbm|_gdbm|nis|_test|xx|_ctypes_test"
    r"|ossaudiodev|audioop)[^/]*\.so$")


def is_elf(path: Path) -> bool:
    with open(path, "rb") as f:
        return f.read(4) == b"\x7fELF"


def ldd(path: Path) -> list[str]:
    """The libraries ld.so loads for `path` (the whole closure), as it finds them."""
    out = subprocess.run(["ldd", str(path)], capture_output=True, text=True).stdout
    found = []
    for line in out.splitlines():
        m = LDD_LINE.match(line)
        if not m or "not a dynamic executable" in line:
            continue
        name, target = m.group(1) or m.group(3), m.group(2)
        if target == "not found" or m.group(3):
            raise SystemExit(f"closure: {path} needs {name}, which ld.so does not find")
        if target is None:
            if name.startswith("/"):
                found.append(name)  # the dynamic loader itself
            continue  # linux-vdso
        found.append(target)
    return found


class Copier:
    def __init__(self, rootfs: Path, own_lib_dir: str):
        self.rootfs = rootfs
        self.own_lib_dir = own_lib_dir
        self.host_paths: set[str] = set()  # what came from Debian packages here
        self.done: set[str] = set()
        self.own_libs = False

    def copy_path(self, host: str) -> None:
        """Copies a system file, each link on the way kept as a link."""
        if host in self.done:
            return
        self.done.add(host)
        self.host_paths.add(host)
        parent = os.path.realpath(os.path.dirname(host))
        dest = self.rootfs / parent.lstrip("/") / os.path.basename(host)
        dest.parent.mkdir(parents=True, exist_ok=True)
        if os.path.islink(host):
            target = os.readlink(host)
            if not dest.is_symlink():
                os.symlink(target, dest)
            self.copy_path(os.path.normpath(os.path.join(parent, target)))
        elif os.path.isfile(host) and not dest.exists():
            shutil.copy2(host, dest)
        elif os.path.isdir(host):
            dest.mkdir(exist_ok=True)

    def copy_library(self, host: str) -> None:
        if os.path.realpath(host).startswith(str(self.rootfs.resolve()) + "/"):
            return  # beside its user already (a backend's RUNPATH $ORIGIN)
        if host.startswith(SYSTEM_PREFIXES):
            self.copy_path(host)
            return
        # third_party/ and the like: the library, and its folder's other
        # libraries, which it may open at run time (ONNX Runtime's providers).
        self.own_libs = True
        dest_dir = self.rootfs / self.own_lib_dir.lstrip("/")
        dest_dir.mkdir(parents=True, exist_ok=True)
        real = Path(os.path.realpath(host))
        for sibling in sorted(real.parent.iterdir()):
            if sibling.is_file() and ".so" in sibling.name and not sibling.is_symlink():
                if not (dest_dir / sibling.name).exists():
                    shutil.copy2(sibling, dest_dir / sibling.name)
        if not (dest_dir / os.path.basename(host)).exists():
            os.symlink(real.name, dest_dir / os.path.basename(host))

    def copy_closure(self, elves: list[Path]) -> None:
        for elf in elves:
            for library in ldd(elf):
                self.copy_library(library)

    def finish(self) -> None:
        """ld.so's configuration and cache, and the dpkg records of what was copied."""
        etc = self.rootfs / "etc"
        etc.mkdir(exist_ok=True)
        dirs = ["/usr/local/lib", "/usr/lib/x86_64-linux-gnu"]
        if self.own_libs:
            dirs.append(self.own_lib_dir)
        (etc / "ld.so.conf").write_text("\n".join(dirs) + "\n")
        subprocess.run(["ldconfig", "-X", "-r", str(self.rootfs)], check=True)
        write_dpkg_status(self.rootfs, sorted(self.host_paths))


def owners(paths: list[str]) -> set[str]:
    """The Debian packages that installed these files (either spelling of merged /usr)."""
    queries = set(paths)
    for p in paths:
        if p.startswith("/usr/lib/"):
            queries.add(p[len("/usr"):])
        elif p.startswith("/lib/"):
            queries.add("/usr" + p)
    out = subprocess.run(["dpkg", "-S", *sorted(queries)], capture_output=True, text=True).stdout
    found = set()
    for line in out.splitlines():
        if line.startswith("diversion ") or ": " not in line:
            continue
        for package in line.split(": ", 1)[0].split(", "):
            found.add(package)
    return found


def write_dpkg_status(rootfs: Path, paths: list[str]) -> None:
    """One dpkg status record per package (/var/lib/dpkg/status.d/, read by image scanners)."""
    status_dir = rootfs / "var/lib/dpkg/status.d"
    status_dir.mkdir(parents=True, exist_ok=True)
    for package in sorted(owners(paths)):
        record = subprocess.run(["dpkg-query", "-s", package], capture_output=True,
                                text=True, check=True).stdout
        name = package.split(":")[0]
        (status_dir / name).write_text(record)
        copyright_file = Path("/usr/share/doc") / name / "copyright"
        if copyright_file.exists():
            dest = rootfs / "usr/share/doc" / name
            dest.mkdir(parents=True, exist_ok=True)
            shutil.copy2(copyright_file, dest / "copyright")


def copy_python(copier: Copier) -> list[Path]:
    """Debian's python3 and numpy, file by file; returns the ELF files copied."""
    out = subprocess.run(["dpkg-query", "-L", *PYTHON_PACKAGES], capture_output=True,
                         text=True, check=True).stdout
    elves = []
    for path in out.splitlines():
        if not path.startswith("/") or PYTHON_SKIP.search(path) or os.path.isdir(path) and \
                not os.path.islink(path):
            continue
        copier.copy_path(path)
        dest = copier.rootfs / os.path.realpath(path).lstrip("/")
        if dest.is_file() and not dest.is_symlink() and is_elf(dest):
            elves.append(dest)
    return elves


def compile_python(rootfs: Path, *extra: Path) -> None:
    """Byte-compiles the image's Python once here: its stubs cannot write .pyc files."""
    folders = [rootfs / "usr/lib/python3.11", rootfs / "usr/lib/python3/dist-packages", *extra]
    subprocess.run(["/usr/bin/python3.11", "-m", "compileall", "-q", "-j2", "-s", str(rootfs),
                    "-p", "/", *map(str, folders)], check=True, stdout=subprocess.DEVNULL)
