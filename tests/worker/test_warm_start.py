"""A worker loads SAL's compiled w-paths before its pool forks (worker_init), not in the first job."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_worker_init_loads_the_compiled_kernel_in_the_parent() -> None:
    code = (
        "from celery.signals import worker_init\n"
        "import worker.celery_app\n"
        "from sal_core import exact_compiled as ec\n"
        "assert not ec._run.signatures\n"
        "worker_init.send(sender=None)\n"
        "assert len(ec._run.signatures) == 1, ec._run.signatures\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT, timeout=300)
