"""Side-by-side wall-time measurement for speed panels.

Speed claims in the book are ratios of times measured in one run on one machine, never absolute
timings asserted in a test.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from icml25.common.checks import check_callable, check_int, check_real


def time_call(fn: Callable[[], Any], repeats: int = 3, min_time: float = 0.0) -> float:
    """Return the best (minimum) wall time in seconds of ``fn()`` over ``repeats`` runs.

    The minimum is the least noisy estimate on a shared machine. If one run takes less than
    ``min_time`` seconds, each run loops ``fn`` until ``min_time`` has passed and reports the
    time per call.

    Args:
        fn: a callable with no arguments.
        repeats: number of timed runs (>= 1).
        min_time: minimum duration of one timed run in seconds (finite, >= 0).
    """
    fn = check_callable("fn", fn)
    repeats = check_int("repeats", repeats)
    min_time = check_real("min_time", min_time, 0.0)  # finite: an infinite min_time never ends
    best = float("inf")
    for _ in range(repeats):
        calls = 0
        start = time.perf_counter()
        while True:
            fn()
            calls += 1
            elapsed = time.perf_counter() - start
            if elapsed >= min_time:
                break
        best = min(best, elapsed / calls)
    return best
