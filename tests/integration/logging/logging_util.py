"""Helpers for the logging tests: the shapes of inferd's log lines, a server
whose lines go to a --log-file, and waiting for a line to appear.

The log file is set only at start (--log-file): like Triton, inferd refuses a
runtime update naming another file (HTTP 501, gRPC UNIMPLEMENTED), so tests
that read lines start a FileLoggedServer and read its file.

Triton's two layouts (UTC; the number after the time is the process id):
    default: I1123 08:10:00.123456 1234 model_version.cc:113] message
    ISO8601: 2026-11-23T08:10:00Z I 1234 model_version.cc:113] message
"""

from __future__ import annotations

import contextlib
import re
from pathlib import Path
from typing import Callable, Iterable, Sequence

from util import InferdServer, wait_until, write_repository

DEFAULT_LINE = re.compile(
    r"^(?P<level>[IWE])(?P<mmdd>\d{4}) \d\d:\d\d:\d\d\.\d{6} (?P<pid>\d+) "
    r"(?P<file>[\w.]+):(?P<line>\d+)\] (?P<message>.*)$")
ISO8601_LINE = re.compile(
    r"^(?P<date>\d{4}-\d\d-\d\d)T\d\d:\d\d:\d\dZ (?P<level>[IWE]) (?P<pid>\d+) "
    r"(?P<file>[\w.]+):(?P<line>\d+)\] (?P<message>.*)$")

DEFAULTS = {"log_file": "", "log_info": True, "log_warning": True, "log_error": True,
            "log_verbose_level": 1,  # util.InferdServer starts every server with --log-verbose=1
            "log_format": "default"}

WAIT_S = 5.0

# In the message refusing a runtime log_file change (HTTP 501, gRPC UNIMPLEMENTED).
LOG_FILE_REFUSED = "'log_file' cannot be changed while the server runs"


def lines_with(text: str, needle: str) -> list[str]:
    return [line for line in text.splitlines() if needle in line]


def wait_for_line(read: Callable[[], str], needle: str, timeout_s: float = WAIT_S) -> str:
    """The first line of read() containing `needle`, waiting up to timeout_s."""
    found = wait_until(lambda: lines_with(read(), needle), timeout=timeout_s, interval=0.05,
                       what=lambda: f"a log line with {needle!r}:\n{read()[-3000:]}")
    return found[0]


def read_text(path: Path) -> str:
    return path.read_text(errors="replace") if path.exists() else ""


class FileLoggedServer(InferdServer):
    """An inferd started with --log-file=<log_file>: its lines (the port
    announcements included) are read from that file; `console` is what it
    wrote to stdout and stderr."""

    def __init__(self, repositories: Iterable[Path], log_file: Path, console: Path,
                 extra_args: Sequence[str] = ()):
        self.log_file = log_file
        super().__init__(repositories, console, extra_args=[f"--log-file={log_file}", *extra_args])

    def console(self) -> str:
        return super().log()

    def log(self) -> str:
        return read_text(self.log_file)

    def defaults(self) -> dict:
        """The settings it starts with when given no other log flags."""
        return {**DEFAULTS, "log_file": str(self.log_file)}

    def since_now(self) -> Callable[[], str]:
        """A reader of what the log file gains from now on (the file is
        shared by a module's tests)."""
        start = len(self.log())
        return lambda: self.log()[start:]


@contextlib.contextmanager
def file_logged_server(tmp_path_factory, models, extra_args: Sequence[str] = ()):
    """A FileLoggedServer over a fresh repository of `models` (a dict
    {name: config}), stopped (expecting exit 0) at the end."""
    repo = write_repository(tmp_path_factory.mktemp("repo"), models)
    logs = tmp_path_factory.mktemp("log")
    server = FileLoggedServer([repo], logs / "inferd.log", logs / "console.log", extra_args)
    try:
        yield server
    finally:
        server.stop()
