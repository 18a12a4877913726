"""Logging of a rule's script: progress and errors go to the job's log file.

Scripts wrap their body in :func:`job_log`; a failure is logged with the rule, the
wildcards (model, task, trial...) and the cause before it propagates, so a failing
job's log says what failed and why. In a job launched as several processes every
process logs to the job's log, each line marked with its rank.
"""

from __future__ import annotations

import logging
import os
import sys
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

LOG = logging.getLogger("skillneurons")


@contextmanager
def job_log(path: str, rule: str, wildcards: Mapping[str, str]) -> Iterator[logging.Logger]:
    """Route logging and stderr (tqdm progress bars included) to ``path`` for the block."""
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    where = ", ".join(f"{key}={value}" for key, value in dict(wildcards).items())
    with open(path, "a", buffering=1) as stream:
        handler = logging.StreamHandler(stream)
        rank = f" [rank {os.environ['RANK']}]" if "WORLD_SIZE" in os.environ else ""
        handler.setFormatter(logging.Formatter(f"%(asctime)s %(levelname)s{rank} %(message)s"))
        root = logging.getLogger()
        root.addHandler(handler)
        root.setLevel(logging.INFO)
        saved_stderr, sys.stderr = sys.stderr, stream
        start = time.perf_counter()
        LOG.info("rule %s started (%s)", rule, where)
        try:
            yield LOG
        except BaseException as error:
            LOG.exception("rule %s failed (%s): %s: %s", rule, where, type(error).__name__, error)
            raise
        else:
            LOG.info("rule %s finished in %.1f s", rule, time.perf_counter() - start)
        finally:
            sys.stderr = saved_stderr
            root.removeHandler(handler)
