"""scripts/image/closure.py on a program made here: a library outside the system
folders (as third_party/'s are, found through an absolute RUNPATH into the
checkout) lands in the image's own library folder and is found there by ld.so,
the system libraries keep their paths, and dpkg records name their packages."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts" / "image"))

import closure  # noqa: E402

LIBRARY_C = 'const char* vendored(void) { return "vendored library found"; }\n'
PROGRAM_C = ('#include <stdio.h>\nconst char* vendored(void);\n'
             'int main(void) { puts(vendored()); return 0; }\n')


@pytest.fixture
def program(tmp_path) -> Path:
    """A program linking libvendored.so.1 of a folder outside /usr, by an absolute RUNPATH."""
    lib_dir = tmp_path / "third_party" / "vendored" / "lib"
    lib_dir.mkdir(parents=True)
    (tmp_path / "vendored.c").write_text(LIBRARY_C)
    (tmp_path / "main.c").write_text(PROGRAM_C)
    subprocess.run(["cc", "-shared", "-fPIC", "-Wl,-soname,libvendored.so.1", "-o",
                    str(lib_dir / "libvendored.so.1"), str(tmp_path / "vendored.c")], check=True)
    os.symlink("libvendored.so.1", lib_dir / "libvendored.so")
    out = tmp_path / "program"
    subprocess.run(["cc", "-o", str(out), str(tmp_path / "main.c"), f"-L{lib_dir}", "-lvendored",
                    f"-Wl,-rpath,{lib_dir}"], check=True)
    return out


def test_closure_of_a_program_with_a_vendored_library(program, tmp_path):
    rootfs = tmp_path / "rootfs"
    for name in ("bin", "lib", "lib64"):
        (rootfs / "usr" / name).mkdir(parents=True)
        os.symlink(f"usr/{name}", rootfs / name)
    (rootfs / "opt/app").mkdir(parents=True)
    inside = rootfs / "opt/app/program"
    inside.write_bytes(program.read_bytes())
    inside.chmod(0o755)
    copier = closure.Copier(rootfs, "/opt/app/lib")
    copier.copy_closure([inside])
    copier.finish()

    assert (rootfs / "opt/app/lib/libvendored.so.1").is_file()
    assert "/opt/app/lib" in (rootfs / "etc/ld.so.conf").read_text().split()
    assert (rootfs / "usr/lib/x86_64-linux-gnu/libc.so.6").exists()
    assert (rootfs / "lib64/ld-linux-x86-64.so.2").exists()
    assert (rootfs / "var/lib/dpkg/status.d/libc6").read_text().startswith("Package: libc6")
    if os.geteuid() != 0:
        pytest.skip("running the program in its root filesystem needs root (chroot)")
    run = subprocess.run(["chroot", str(rootfs), "/opt/app/program"], capture_output=True,
                         text=True)
    assert (run.returncode, run.stdout) == (0, "vendored library found\n"), run.stderr


def test_a_library_ld_so_does_not_find_stops_the_build(tmp_path):
    lib = tmp_path / "libgone.so"
    (tmp_path / "gone.c").write_text("int gone(void) { return 1; }\n")
    (tmp_path / "main.c").write_text("int gone(void);\nint main(void) { return gone(); }\n")
    subprocess.run(["cc", "-shared", "-fPIC", "-o", str(lib), str(tmp_path / "gone.c")],
                   check=True)
    program = tmp_path / "program"
    subprocess.run(["cc", "-o", str(program), str(tmp_path / "main.c"), f"-L{tmp_path}",
                    "-lgone"], check=True)
    with pytest.raises(SystemExit, match="needs libgone.so, which ld.so does not find"):
        closure.ldd(program)
