"""Side-by-side wall-time measurement for speed panels.

Speed claims in the book are ratios of times measured in one run on one machine, never absolute
timings asserted in a test.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any


def time_call(fn: Callable[[], Any], repeats: int = 3, min_time: float = 0.0) -> float:
    """Return the best (minimum) wall time in seconds of ``fn()`` over ``repeats`` runs.

    The minimum is the least noisy estimate on a shared machine. If one run takes less than
    ``min_time`` seconds, each run loops ``fn`` until ``min_time`` has passed and reports the
    time per call.

    Args:
        fn: a callable with no arguments.
        repeats: number of timed runs (>= 1).
        min_time: minimum duration of one timed run in seconds (>= 0).
    """
    if not callable(fn):
        raise TypeError(f"fn must be callable, got {type(fn).__name__}")
    if isinstance(repeats, bool) or not isinstance(repeats, int) or repeats < 1:
        raise ValueError(f"repeats must be an int >= 1, got {repeats!r}")
    if not min_time >= 0:
        raise ValueError(f"min_time must be >= 0, got {min_time!r}")
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
