"""Shared, tested helpers for every chapter: set-up, scale switch, paths, plotting,
timing, glue, argument checks; the book's small language model (``lm``), the offline
pretrained SmolLM2 (``pretrained``) and the shared training loop (``training``), imported on
their own.

``icml25.common`` imports no paper module; paper modules import it.
"""

from icml25.common import checks, paths, plotting
from icml25.common.glue import glue
from icml25.common.runtime import SCALES, get_device, scale, seed_everything, setup
from icml25.common.timing import time_call

__all__ = [
    "SCALES",
    "checks",
    "get_device",
    "glue",
    "paths",
    "plotting",
    "scale",
    "seed_everything",
    "setup",
    "time_call",
]
