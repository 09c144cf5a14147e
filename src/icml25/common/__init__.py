"""Shared, tested helpers for every chapter: set-up, scale switch, repo paths, plotting, timing.

``icml25.common`` imports no paper module; paper modules import it.
"""

from icml25.common import paths, plotting
from icml25.common.runtime import SCALES, get_device, scale, seed_everything, setup
from icml25.common.timing import time_call

__all__ = [
    "SCALES",
    "get_device",
    "paths",
    "plotting",
    "scale",
    "seed_everything",
    "setup",
    "time_call",
]
