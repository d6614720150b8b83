"""pb_utils.Logger (re-exported by triton_python_backend_utils): a model's
lines in the server's log, in the server's line format."""

import os
import sys
import time


class Logger:
    """Writes to the server's log (the stub's stderr), with the caller's file
    and line, in the server's line format."""

    class LogLevel:
        INFO = 0
        WARNING = 1
        ERROR = 2
        VERBOSE = 3

    INFO = LogLevel.INFO
    WARNING = LogLevel.WARNING
    ERROR = LogLevel.ERROR
    VERBOSE = LogLevel.VERBOSE

    @staticmethod
    def log(message, level=LogLevel.INFO):
        frame = sys._getframe(1)
        while frame is not None and frame.f_code.co_filename == __file__:
            frame = frame.f_back
        where = "model.py:0"
        if frame is not None:
            where = f"{frame.f_code.co_filename.rsplit('/', 1)[-1]}:{frame.f_lineno}"
        letter = "IWEI"[level] if 0 <= level <= 3 else "I"
        now = time.time()
        stamp = time.strftime("%m%d %H:%M:%S", time.localtime(now))
        micros = int((now % 1) * 1e6)
        sys.stderr.write(f"{letter}{stamp}.{micros:06d} {os.getpid()} {where}] {message}\n")

    @staticmethod
    def log_info(message):
        Logger.log(message, Logger.LogLevel.INFO)

    @staticmethod
    def log_warn(message):
        Logger.log(message, Logger.LogLevel.WARNING)

    @staticmethod
    def log_error(message):
        Logger.log(message, Logger.LogLevel.ERROR)

    @staticmethod
    def log_verbose(message):
        Logger.log(message, Logger.LogLevel.VERBOSE)
