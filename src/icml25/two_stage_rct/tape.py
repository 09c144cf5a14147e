"""Common random numbers for comparing designs: one outcome per (trial, arm, patient).

Comparing two designs on *independent* draws adds the noise of both to their difference. With an
:class:`OutcomeTape`, every design of a trial reads the same patients: arm i's j-th patient has
the same outcome whichever design enrols them. Stage 1 (halves U and V) reads patients
``[0, per_arm)`` of every arm, stage 2 the next ``m``, a single-stage trial the first ``T/n``. The
differences between designs then come from their decisions, not from their luck, and a paired
difference per trial has a smaller variance. (The official code re-seeds NumPy before every
design: that shares the random *stream*, not the patients, since an arm's j-th draw moves with
k and with the arm's rank, and its stage 2 re-reads stage 1's draws.)
"""

from __future__ import annotations

import numpy as np

from icml25.common.checks import check_array, check_int


class OutcomeTape:
    """Pre-drawn outcomes x[t, i, j] of patient j on arm i in trial t, read as means.

    Args:
        mu: arm effects μ, shape (t, n) (in [0, 1] for Bernoulli outcomes).
        length: patients per arm on the tape (at least the most any design enrols on one arm).
        outcome: ``"bernoulli"`` (x ~ Bernoulli(μ)) or ``"normal"`` (x ~ N(μ, 1)).
        rng: a ``numpy.random.Generator``.

    Memory: (t, n, length + 1) cumulative sums (int32 or float64).
    """

    def __init__(self, mu: np.ndarray, length: int, outcome: str, rng: np.random.Generator) -> None:
        mu = check_array("mu", mu, 2)
        length = check_int("length", length)
        if outcome not in ("bernoulli", "normal"):
            raise ValueError(f"outcome must be 'bernoulli' or 'normal', got {outcome!r}")
        if not isinstance(rng, np.random.Generator):
            raise TypeError(f"rng must be a numpy Generator, got {type(rng).__name__}")
        t, n = mu.shape
        if outcome == "bernoulli":
            if mu.min() < 0 or mu.max() > 1:
                raise ValueError("mu must lie in [0, 1] for Bernoulli outcomes")
            x = (rng.random((t, n, length)) < mu[:, :, None]).astype(np.int32)
        else:
            x = mu[:, :, None] + rng.standard_normal((t, n, length))
        self.cum = np.zeros((t, n, length + 1), dtype=x.dtype)
        np.cumsum(x, axis=2, out=self.cum[:, :, 1:])
        self.shape = (t, n)
        self.length = length
        self.outcome = outcome

    def mean(self, start: np.ndarray | int, count: np.ndarray | int, arms=None) -> np.ndarray:
        """Mean outcome of patients ``[start, start + count)`` of each arm.

        Args:
            start, count: ints or arrays broadcasting against the result, shape (t, k).
            arms: (t, k) arm indices (e.g. the stage-1 ranking); default all n arms in order.

        Returns:
            (t, k) means; 0 where ``count`` is 0.
        """
        t, n = self.shape
        cum = self.cum if arms is None else np.take_along_axis(self.cum, arms[:, :, None], 1)
        k = cum.shape[1]
        start = np.broadcast_to(np.asarray(start), (t, k))
        count = np.broadcast_to(np.asarray(count), (t, k))
        stop = start + count
        if start.min() < 0 or stop.max() > self.length:
            raise ValueError(
                f"the tape holds {self.length} patients per arm; asked for patient {stop.max()}"
            )
        hi = np.take_along_axis(cum, stop[:, :, None], 2)[:, :, 0]
        lo = np.take_along_axis(cum, start[:, :, None], 2)[:, :, 0]
        return (hi - lo) / np.maximum(count, 1)
