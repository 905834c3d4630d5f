"""Start a worker: ``python -m worker [-Q sal,gpu] [--concurrency 1] [--loglevel INFO] [--hostname H]``.

The queues default to the CPU queue (``SAL_CPU_QUEUE``); the process becomes
``app.queue.worker_command``, the one worker command line.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Sequence

from app.queue import worker_command
from app.settings import get_settings


def command(argv: Sequence[str] | None = None) -> list[str]:
    """The command line ``python -m worker ARGV`` becomes (tests/deploy checks compose's with it)."""
    settings = get_settings()
    parser = argparse.ArgumentParser(prog="python -m worker", description=__doc__.splitlines()[0])
    parser.add_argument("-Q", "--queues", default=settings.cpu_queue, help="comma-separated queues")
    parser.add_argument("--concurrency", type=int, default=1, help="fits run at once (processes)")
    parser.add_argument("--loglevel", default="INFO")
    parser.add_argument("--hostname", default=None, help="Celery node name, e.g. worker1@%%h")
    args = parser.parse_args(argv)
    return worker_command(
        args.queues.split(","), args.concurrency, loglevel=args.loglevel, hostname=args.hostname
    )


def main(argv: Sequence[str] | None = None) -> None:
    args = command(argv)
    os.execv(args[0], args)


if __name__ == "__main__":
    main()
