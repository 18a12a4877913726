"""Logging of a rule's script: progress and errors go to the job's log file.

Scripts wrap their body in :func:`job_log`; a failure is logged with the rule, the
wildcards (model, task, trial...) and the cause before it propagates, so a failing
job's log says what failed and why. In a job launched as several processes every
process logs to the job's log, each line marked with its rank; in a job that computes
several runs or trials (:func:`skillneurons.infra.separate.separate_runs`), each run's lines are
marked with the run (:func:`marked`).
"""

from __future__ import annotations

import logging
import os
import sys
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path

LOG = logging.getLogger("skillneurons")
#: What the job's lines are marked with now (:func:`marked`), e.g. "run 1".
_MARK: ContextVar[str] = ContextVar("mark", default="")
#: The mark of the last marked block an exception left (the run a job failed in: a
#: generator of runs is closed, and its mark reset, before the job's failure line).
_LEFT_BY_ERROR: ContextVar[str] = ContextVar("left_by_error", default="")


def _add_mark(record: logging.LogRecord) -> bool:
    """A log filter: the record's ``mark``, " [run 1]" inside :func:`marked`, else ""."""
    record.mark = f" [{_MARK.get()}]" if _MARK.get() else ""
    return True


@contextmanager
def marked(mark: str) -> Iterator[None]:
    """Mark every line the job's log gets inside the block with ``mark`` (e.g. "run 1")."""
    token = _MARK.set(mark)
    try:
        yield
    except BaseException:  # an error, or the close of a generator of runs
        _LEFT_BY_ERROR.set(mark)
        raise
    finally:
        _MARK.reset(token)


@contextmanager
def job_log(path: str, rule: str, wildcards: Mapping[str, str]) -> Iterator[logging.Logger]:
    """Route logging and stderr (tqdm progress bars included) to ``path`` for the block."""
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    where = ", ".join(f"{key}={value}" for key, value in dict(wildcards).items())
    with open(path, "a", buffering=1) as stream:
        handler = logging.StreamHandler(stream)
        rank = f" [rank {os.environ['RANK']}]" if "WORLD_SIZE" in os.environ else ""
        handler.addFilter(_add_mark)
        handler.setFormatter(
            logging.Formatter(f"%(asctime)s %(levelname)s{rank}%(mark)s %(message)s")
        )
        root = logging.getLogger()
        root.addHandler(handler)
        root.setLevel(logging.INFO)
        saved_stderr, sys.stderr = sys.stderr, stream
        start = time.perf_counter()
        _LEFT_BY_ERROR.set("")
        LOG.info("rule %s started (%s)", rule, where)
        try:
            yield LOG
        except BaseException as error:
            with marked(_MARK.get() or _LEFT_BY_ERROR.get()):  # the run it failed in
                LOG.exception(
                    "rule %s failed (%s): %s: %s", rule, where, type(error).__name__, error
                )
            raise
        else:
            LOG.info("rule %s finished in %.1f s", rule, time.perf_counter() - start)
        finally:
            sys.stderr = saved_stderr
            root.removeHandler(handler)
