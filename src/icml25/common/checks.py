"""Argument validation for public functions: clear ``TypeError``/``ValueError`` naming the argument.

Every chapter's public functions validate their inputs with these (or in the same style): wrong
type -> ``TypeError``, wrong value, shape, NaN or inf -> ``ValueError``, each message naming the
argument and what was expected. Each check returns the value in the form the caller should use
(an ``int``, a ``float``, a float or int array), so that a boundary reads one line per argument:

    n = check_int("n", n)
    p = check_probability("p", p)
    X = check_array("X", X, 2)
"""

from __future__ import annotations

import numbers
from collections.abc import Callable, Collection
from typing import Any

import numpy as np

#: Seeds are ints in [0, SEED_HIGH): what both ``numpy.random.default_rng`` and
#: ``torch.manual_seed`` accept.
SEED_HIGH = 2**64


def _type_name(value: object) -> str:
    return type(value).__name__


def check_int(name: str, value: object, low: int | None = 1, high: int | None = None) -> int:
    """Return ``value`` as an int if it is an integer in ``[low, high]`` (``None``: unbounded)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an int, got {_type_name(value)}")
    value = int(value)
    if (low is not None and value < low) or (high is not None and value > high):
        if low is not None and high is not None:
            bound = f"in [{low}, {high}]"
        else:
            bound = f">= {low}" if low is not None else f"<= {high}"
        raise ValueError(f"{name} must be {bound}, got {value}")
    return value


def check_real(
    name: str,
    value: object,
    low: float | None = None,
    high: float | None = None,
    low_open: bool = False,
    high_open: bool = False,
) -> float:
    """Return ``value`` as a float if it is a finite real number in the given interval.

    ``low``/``high`` are the bounds (``None``: unbounded), closed unless ``low_open``/``high_open``.
    Ints (and numpy scalars) are accepted; bools, strings and None are a ``TypeError``.
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {_type_name(value)}")
    value = float(value)
    below = low is not None and (value <= low if low_open else value < low)
    above = high is not None and (value >= high if high_open else value > high)
    if not np.isfinite(value) or below or above:
        left = "(" if low_open else "["
        right = ")" if high_open else "]"
        lo = "-inf" if low is None else f"{low:g}"
        hi = "inf" if high is None else f"{high:g}"
        interval = f" in {left}{lo}, {hi}{right}" if low is not None or high is not None else ""
        raise ValueError(f"{name} must be a finite number{interval}, got {value}")
    return value


def check_positive(name: str, value: object) -> float:
    """Return ``value`` as a float if it is a finite real number > 0; raise otherwise."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {_type_name(value)}")
    value = float(value)
    if not np.isfinite(value) or value <= 0:
        raise ValueError(f"{name} must be a finite number > 0, got {value}")
    return value


def check_probability(
    name: str, value: object, low_open: bool = False, high_open: bool = False
) -> float:
    """Return ``value`` as a float if it is a probability in [0, 1] (ends open if asked)."""
    return check_real(name, value, 0.0, 1.0, low_open=low_open, high_open=high_open)


def check_array(name: str, value: object, ndim: int) -> np.ndarray:
    """Return ``value`` as a finite float array with ``ndim`` dimensions; raise otherwise."""
    if not isinstance(value, np.ndarray):
        raise TypeError(f"{name} must be a numpy array, got {_type_name(value)}")
    if value.ndim != ndim:
        raise ValueError(f"{name} must have {ndim} dimension(s), got shape {value.shape}")
    if value.size == 0:
        raise ValueError(f"{name} must not be empty, got shape {value.shape}")
    if not np.issubdtype(value.dtype, np.number) or np.iscomplexobj(value):
        raise TypeError(f"{name} must hold real numbers, got dtype {value.dtype}")
    value = value.astype(float, copy=False)
    if not np.all(np.isfinite(value)):
        raise ValueError(f"{name} must be finite (no NaN or inf)")
    return value


def _as_numeric(name: str, value: object) -> np.ndarray:
    """``value`` (an array, list, tuple or pandas object of numbers) as a real numpy array."""
    if isinstance(value, (str, bytes, dict, set)) or value is None or np.isscalar(value):
        raise TypeError(f"{name} must be an array of numbers, got {_type_name(value)}")
    try:
        arr = np.asarray(value)
    except (ValueError, TypeError) as err:  # ragged nested lists
        raise ValueError(f"{name} must be a rectangular array of numbers ({err})") from None
    if arr.dtype == bool or not np.issubdtype(arr.dtype, np.number) or np.iscomplexobj(arr):
        raise TypeError(f"{name} must hold real numbers, got dtype {arr.dtype}")
    return arr


def _check_shape(name: str, arr: np.ndarray, ndim: int | None, min_size: int) -> None:
    if ndim is not None and arr.ndim != ndim:
        raise ValueError(f"{name} must have {ndim} dimension(s), got shape {arr.shape}")
    if arr.size < min_size:
        raise ValueError(f"{name} must hold at least {min_size} value(s), got shape {arr.shape}")


def check_finite_array(
    name: str, value: object, ndim: int | None = None, min_size: int = 1
) -> np.ndarray:
    """Return ``value`` (an array or a list/tuple/Series of numbers) as a finite float array.

    Unlike :func:`check_array` it accepts array-likes; ``ndim`` (if given) is the required number
    of dimensions and ``min_size`` the least number of entries.
    """
    arr = _as_numeric(name, value)
    _check_shape(name, arr, ndim, min_size)
    arr = arr.astype(float, copy=False)
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must be finite (no NaN or inf)")
    return arr


def check_probabilities(name: str, value: object, ndim: int | None = None) -> np.ndarray:
    """Return ``value`` as a float array of probabilities, every entry in [0, 1]."""
    arr = check_finite_array(name, value, ndim)
    if arr.min() < 0 or arr.max() > 1:
        raise ValueError(f"{name} must lie in [0, 1], got values in [{arr.min()}, {arr.max()}]")
    return arr


def check_index_array(
    name: str,
    value: object,
    high: int | None = None,
    low: int = 0,
    ndim: int | None = None,
    min_size: int = 1,
    high_name: str | None = None,
) -> np.ndarray:
    """Return ``value`` as an int64 array of indices in ``[low, high)`` (e.g. token ids < vocab).

    Integer arrays and lists of ints are accepted; floats, bools and strings are a ``TypeError``
    (an index is never rounded silently), an entry outside the range a ``ValueError``, whose
    message also names ``high_name`` (the argument ``high`` comes from) if given.
    """
    arr = _as_numeric(name, value)
    if not np.issubdtype(arr.dtype, np.integer) and arr.size:
        raise TypeError(f"{name} must hold integers, got dtype {arr.dtype}")
    _check_shape(name, arr, ndim, min_size)
    arr = arr.astype(np.int64, copy=False)
    if arr.size and (arr.min() < low or (high is not None and arr.max() >= high)):
        top = f"{high_name}={high}" if high_name else f"{high}"
        bound = f"in [{low}, {top})" if high is not None else f">= {low}"
        raise ValueError(
            f"{name} must hold indices {bound}, got values in [{arr.min()}, {arr.max()}]"
        )
    return arr


def check_index(name: str, value: object, high: int, low: int = 0) -> int:
    """Return ``value`` as an int index in ``[low, high)``."""
    return check_int(name, value, low, high - 1)


def check_choice(name: str, value: object, choices: Collection[Any]) -> Any:
    """Return ``value`` if it is one of ``choices``; raise a ``ValueError`` naming them otherwise.

    A value of the wrong type for string choices (an int, a list) is a ``TypeError``.
    """
    options = tuple(choices)
    if options and all(isinstance(c, str) for c in options) and not isinstance(value, str):
        raise TypeError(f"{name} must be one of {options} (a str), got {_type_name(value)}")
    if not any(_same(value, c) for c in options):
        raise ValueError(f"{name} must be one of {options}, got {value!r}")
    return value


def _same(value: object, choice: object) -> bool:
    if isinstance(value, bool) != isinstance(choice, bool):  # True is not the choice 1
        return False
    if isinstance(choice, numbers.Integral) and not isinstance(value, numbers.Integral):
        return False  # 2.0 is not the choice 2
    try:
        return bool(value == choice)
    except (TypeError, ValueError):  # arrays and other values without a plain ==
        return False


def check_seed(name: str, value: object) -> int:
    """Return ``value`` as an int seed in [0, 2^64) (what numpy and torch both accept)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an int seed, got {_type_name(value)}")
    value = int(value)
    if not 0 <= value < SEED_HIGH:
        raise ValueError(f"{name} must be a seed in [0, 2**64), got {value}")
    return value


def check_rng(name: str, value: object, default_seed: int | None = None) -> np.random.Generator:
    """Return ``value`` if it is a ``numpy.random.Generator``.

    ``None`` gives ``numpy.random.default_rng(default_seed)`` when a ``default_seed`` is set (a
    documented, reproducible default) and is a ``TypeError`` otherwise (the generator is required).
    """
    if value is None and default_seed is not None:
        return np.random.default_rng(default_seed)
    if not isinstance(value, np.random.Generator):
        raise TypeError(f"{name} must be a numpy Generator, got {_type_name(value)}")
    return value


def check_callable(name: str, value: object) -> Callable:
    """Return ``value`` if it is callable; raise a ``TypeError`` naming it otherwise."""
    if not callable(value):
        raise TypeError(f"{name} must be callable, got {_type_name(value)}")
    return value


def check_instance(name: str, value: object, cls: type | tuple[type, ...]) -> Any:
    """Return ``value`` if it is an instance of ``cls``; raise a ``TypeError`` naming it."""
    if not isinstance(value, cls):
        names = " or ".join(c.__name__ for c in (cls if isinstance(cls, tuple) else (cls,)))
        raise TypeError(f"{name} must be a {names}, got {_type_name(value)}")
    return value


def check_tensor(name: str, value: object, ndim: int | None = None, finite: bool = True):
    """Return ``value`` if it is a torch tensor with ``ndim`` dimensions (and finite entries).

    Floating tensors are checked for NaN/inf when ``finite``; integer tensors are not.
    """
    import torch

    if not isinstance(value, torch.Tensor):
        raise TypeError(f"{name} must be a torch tensor, got {_type_name(value)}")
    if ndim is not None and value.ndim != ndim:
        raise ValueError(f"{name} must have {ndim} dimension(s), got shape {tuple(value.shape)}")
    if value.numel() == 0:
        raise ValueError(f"{name} must not be empty, got shape {tuple(value.shape)}")
    if finite and value.is_floating_point() and not bool(torch.isfinite(value).all()):
        raise ValueError(f"{name} must be finite (no NaN or inf)")
    return value


def check_symmetric(name: str, value: object) -> np.ndarray:
    """Return ``value`` as a finite float array if it is a symmetric square matrix."""
    value = check_array(name, value, 2)
    if value.shape[0] != value.shape[1]:
        raise ValueError(f"{name} must be square, got shape {value.shape}")
    scale = max(1.0, float(np.abs(value).max()))
    if not np.allclose(value, value.T, rtol=1e-8, atol=1e-10 * scale):
        raise ValueError(f"{name} must be symmetric")
    return value


def check_texts(name: str, value: object) -> list[str]:
    """Return ``value`` as a list of strings if it is a non-empty list, tuple or 1-D array of
    non-blank strings; a bare string is a ``TypeError`` (a list of one is meant)."""
    if isinstance(value, str) or not isinstance(value, (list, tuple, np.ndarray)):
        raise TypeError(f"{name} must be a list of strings, got {type(value).__name__}")
    texts = list(value)
    if not texts or not all(isinstance(t, str) and t.strip() for t in texts):
        raise ValueError(f"{name} must be a non-empty list of non-empty strings")
    return texts


def check_device(name: str, value: object, allow_none: bool = True):
    """Return ``value`` as a ``torch.device``: a ``torch.device``, or a string torch reads as one
    (``"cpu"``, ``"cuda"``); ``None`` (when ``allow_none``) means
    :func:`icml25.common.runtime.get_device`, a GPU when one is visible."""
    import torch

    if value is None and allow_none:
        from icml25.common.runtime import get_device

        return torch.device(get_device())
    if isinstance(value, torch.device):
        return value
    if not isinstance(value, str):
        allowed = "a torch.device, a str or None" if allow_none else "a torch.device or a str"
        raise TypeError(f"{name} must be {allowed}, got {_type_name(value)}")
    try:
        return torch.device(value)
    except RuntimeError:
        raise ValueError(f"{name} must name a torch device such as 'cpu', got {value!r}") from None
