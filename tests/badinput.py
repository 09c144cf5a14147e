"""Machinery of the bad-input suite (``tests/test_bad_input_*.py``): specs, strategies, properties.

A :class:`Spec` describes one public callable: a cheap valid call (keyword arguments) and, for
each argument, a hypothesis strategy of bad values. The suite substitutes one bad value at a time
into the valid call and checks the house rule: the call raises ``ValueError`` or ``TypeError``
whose message names the argument, within a second (a hard ``SIGALRM`` guard, so a hang fails
instead of blocking the run). ``finite=True`` adds the property "valid input gives a finite
result", over the valid call and over the ``good`` strategies (valid values, one argument at a
time). ``tests/test_bad_input_coverage.py`` checks that every name in every ``__all__`` has a
spec and that every argument has bad values or is listed in ``free`` (accepts any value).
"""

from __future__ import annotations

import dataclasses
import math
import re
import signal
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

TIME_LIMIT_S = 1.0


@dataclass
class Spec:
    """One public callable of the package and how to call it badly.

    Attributes:
        fn: the function, class (its constructor) or unbound method (``self`` in ``valid``).
        valid: keyword arguments of a cheap valid call, or a function returning them (for
            arguments that must be fresh or are expensive to build: cache those).
        bad: argument -> strategy of bad values for it.
        free: arguments that accept any value (flags, callables used as given, ``self``...).
        names: argument -> the name the error message must contain (default: the argument).
        good: argument -> strategy of valid values; with ``finite`` the result must be finite.
        finite: the contract is a finite result (number, array, tensor or a structure of them).
        run_valid: False when even the valid call is too expensive for a unit test (it loads a
            model file); then only the bad calls run, and they must fail before any loading.
    """

    fn: Callable
    valid: dict[str, Any] | Callable[[], dict[str, Any]] = field(default_factory=dict)
    bad: dict[str, st.SearchStrategy] = field(default_factory=dict)
    free: tuple[str, ...] = ()
    names: dict[str, str] = field(default_factory=dict)
    good: dict[str, st.SearchStrategy] = field(default_factory=dict)
    finite: bool = False
    run_valid: bool = True

    def kwargs(self) -> dict[str, Any]:
        return dict(self.valid() if callable(self.valid) else self.valid)


class Hang(BaseException):
    """Raised by :func:`time_limit` (a BaseException, so that no ``except Exception`` eats it)."""


@contextmanager
def time_limit(seconds: float = TIME_LIMIT_S):
    """Fail a call that does not return within ``seconds`` (SIGALRM; main thread, Unix)."""

    def on_alarm(signum, frame):
        raise Hang(f"the call did not return within {seconds} s")

    previous = signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def names_argument(message: str, name: str) -> bool:
    """True if ``name`` occurs in ``message`` as a whole word (``n`` is not in ``n_items``)."""
    return re.search(rf"(?<![A-Za-z0-9_]){re.escape(name)}(?![A-Za-z0-9_])", message) is not None


def assert_rejects(spec: Spec, arg: str, value: Any) -> None:
    """The property: ``spec`` with ``arg=value`` raises a named ValueError/TypeError in time."""
    kwargs = spec.kwargs()
    kwargs[arg] = value
    with pytest.raises((ValueError, TypeError)) as info, time_limit():
        spec.fn(**kwargs)
    name = spec.names.get(arg, arg)
    message = str(info.value)
    assert names_argument(message, name), (
        f"{type(info.value).__name__} for {arg}={value!r} does not name {name!r}: {message}"
    )


def assert_finite(out: Any, where: str = "result") -> None:
    """Every number in ``out`` (numbers, arrays, tensors, containers, dataclasses) is finite."""
    import torch

    if isinstance(out, bool) or out is None or isinstance(out, str):
        return
    if isinstance(out, (int, float, np.number)):
        assert math.isfinite(float(out)), f"{where} is {out}"
    elif isinstance(out, np.ndarray):
        if np.issubdtype(out.dtype, np.number):
            assert np.all(np.isfinite(out)), f"{where} has non-finite entries"
    elif isinstance(out, torch.Tensor):
        if out.is_floating_point():
            assert bool(torch.isfinite(out).all()), f"{where} has non-finite entries"
    elif isinstance(out, dict):
        for k, v in out.items():
            assert_finite(v, f"{where}[{k!r}]")
    elif isinstance(out, (list, tuple)):
        for i, v in enumerate(out):
            assert_finite(v, f"{where}[{i}]")
    elif dataclasses.is_dataclass(out):
        for f in dataclasses.fields(out):
            assert_finite(getattr(out, f.name), f"{where}.{f.name}")


def bad_input_test(specs: dict[str, Spec]):
    """A test, parametrised over every (spec, argument), of the bad-input property."""
    cases = [(key, arg) for key, spec in specs.items() for arg in spec.bad]

    @pytest.mark.parametrize(("key", "arg"), cases, ids=[f"{k}:{a}" for k, a in cases])
    @given(data=st.data())
    def test_bad_input_is_rejected(key, arg, data):
        spec = specs[key]
        assert_rejects(spec, arg, data.draw(spec.bad[arg], label=arg))

    return test_bad_input_is_rejected


def valid_input_test(specs: dict[str, Spec]):
    """A test, parametrised over every spec, that its valid call runs (and is finite if so)."""
    keys = [key for key, spec in specs.items() if spec.run_valid]

    @pytest.mark.parametrize("key", keys)
    def test_valid_input_runs(key):
        spec = specs[key]
        out = spec.fn(**spec.kwargs())
        if spec.finite:
            assert_finite(out)

    return test_valid_input_runs


def good_input_test(specs: dict[str, Spec]):
    """A test, over every (spec, argument) with ``good`` values, that the result stays finite."""
    cases = [(key, arg) for key, spec in specs.items() for arg in spec.good]

    @pytest.mark.parametrize(("key", "arg"), cases, ids=[f"{k}:{a}" for k, a in cases])
    @given(data=st.data())
    def test_good_input_is_finite(key, arg, data):
        spec = specs[key]
        kwargs = spec.kwargs()
        kwargs[arg] = data.draw(spec.good[arg], label=arg)
        with time_limit(5 * TIME_LIMIT_S):
            out = spec.fn(**kwargs)
        if spec.finite:
            assert_finite(out)

    return test_good_input_is_finite


# ---------------------------------------------------------------- strategies of bad values


def not_none(strategy: st.SearchStrategy) -> st.SearchStrategy:
    """``strategy`` without None: for an optional argument, where None is a valid value."""
    return strategy.filter(lambda v: v is not None)


NOT_NUMBERS = st.sampled_from(["3", None, [1], (1.0,), {"a": 1}, b"1", 1j])
NON_FINITE = st.sampled_from([math.nan, math.inf, -math.inf])


def not_int() -> st.SearchStrategy:
    """Values that are not integers: floats (also integral ones), bools, strings, None, lists."""
    return st.one_of(
        st.floats(allow_nan=True, allow_infinity=True),
        st.sampled_from([True, False, 2.0, np.float64(3.0)]),
        NOT_NUMBERS,
    )


def bad_int(low: int | None = 1, high: int | None = None) -> st.SearchStrategy:
    """Integers outside ``[low, high]``, and non-integers."""
    options = [not_int()]
    if low is not None:
        options.append(st.integers(max_value=low - 1))
        options.append(st.just(np.int64(low - 1)))
    if high is not None:
        options.append(st.integers(min_value=high + 1))
    return st.one_of(*options)


def bad_real(
    low: float | None = None,
    high: float | None = None,
    low_open: bool = False,
    high_open: bool = False,
) -> st.SearchStrategy:
    """NaN, +-inf, reals outside the interval (its ends if open), and non-numbers."""
    options = [NON_FINITE, NOT_NUMBERS, st.sampled_from([True, False])]
    if low is not None:
        options.append(st.floats(max_value=low, exclude_max=not low_open, allow_nan=False))
    if high is not None:
        options.append(st.floats(min_value=high, exclude_min=not high_open, allow_nan=False))
    return st.one_of(*options)


def bad_positive() -> st.SearchStrategy:
    """Zero, negatives, NaN, inf and non-numbers."""
    return bad_real(0.0, None, low_open=True)


def bad_probability(low_open: bool = False, high_open: bool = False) -> st.SearchStrategy:
    """Numbers outside [0, 1] (or its open version), NaN and non-numbers."""
    return bad_real(0.0, 1.0, low_open, high_open)


def bad_seed() -> st.SearchStrategy:
    """Negative or too large integers, floats, strings, None."""
    return st.one_of(
        st.integers(max_value=-1),
        st.integers(min_value=2**64, max_value=2**70),
        not_int(),
    )


def bad_choice(choices) -> st.SearchStrategy:
    """Strings that are not among ``choices`` (including near misses), and non-strings."""
    choices = tuple(choices)
    near = [c.upper() for c in choices if isinstance(c, str) and c.upper() not in choices]
    near += [f" {c}" for c in choices if isinstance(c, str)]
    return st.one_of(
        st.text(max_size=6).filter(lambda s: s not in choices),
        st.sampled_from(near or ["bogus"]),
        st.sampled_from([None, 0, 1.5, ["x"]]),
    )


def not_array(none: bool = True) -> st.SearchStrategy:
    """Values that are no array at all (None too, unless ``none=False``: where None is valid)."""
    return st.sampled_from(["abc", {"a": 1}, object()] + ([None] if none else []))


def _with(arr: np.ndarray, index: int, value: float) -> np.ndarray:
    out = np.array(arr, dtype=float, copy=True)
    out.flat[index % out.size] = value
    return out


def nonfinite_like(valid) -> st.SearchStrategy:
    """Copies of the array ``valid`` with one entry NaN, inf or -inf."""
    arr = np.asarray(valid, dtype=float)
    return st.builds(_with, st.just(arr), st.integers(0, arr.size - 1), NON_FINITE)


def reshaped_like(valid) -> st.SearchStrategy:
    """Arrays of the wrong shape: one more or one fewer dimension, empty."""
    arr = np.asarray(valid)
    options = [arr[None], arr[:0]]
    if arr.ndim >= 1:
        options.append(arr[0])
    if arr.ndim >= 2:
        options.append(arr.reshape(-1))
    return st.sampled_from(options)


def bad_array(valid, shape: bool = True, none: bool = True) -> st.SearchStrategy:
    """Non-finite copies of ``valid``, wrong shapes (``shape=True``), wrong dtypes, no array
    (None included unless ``none=False``)."""
    arr = np.asarray(valid)
    options = [nonfinite_like(arr), not_array(none), st.just(arr.astype(str))]
    if shape:
        options.append(reshaped_like(arr))
    return st.one_of(*options)


def bad_index_array(valid, high: int | None, low: int = 0) -> st.SearchStrategy:
    """Index arrays like ``valid`` with an entry below ``low`` or >= ``high``, or float/str."""
    arr = np.asarray(valid, dtype=np.int64)
    values = [low - 1, low - 1000] + ([high, high + 7] if high is not None else [])

    def put(i, v):
        out = arr.copy()
        out.flat[i % out.size] = v
        return out

    return st.one_of(
        st.builds(put, st.integers(0, arr.size - 1), st.sampled_from(values)),
        st.just(arr.astype(float) + 0.5),
        st.just(arr.astype(str)),
        not_array(),
    )


def bad_tensor(valid, none: bool = True) -> st.SearchStrategy:
    """Tensors like ``valid`` with a NaN/inf entry or one dimension more/less, and non-tensors
    (None too, unless ``none=False``)."""
    import torch

    t = valid.detach().clone()

    def put(i, v):
        out = t.clone().float()
        out.view(-1)[i % out.numel()] = v
        return out

    return st.one_of(
        st.builds(put, st.integers(0, t.numel() - 1), NON_FINITE),
        st.sampled_from([t[None], t.reshape(-1)[:0]] + ([t[0]] if t.ndim else [])),
        st.sampled_from([t.numpy(), "abc"] + ([None] if none else [])),
        st.just(torch.zeros(0)),
    )


def not_a(*examples, none: bool = True) -> st.SearchStrategy:
    """Values of the wrong type for an object argument (a model, a callable, a dict...): the
    ``examples``, a string, an int, an object and (unless ``none=False``) None."""
    return st.sampled_from([*examples, "abc", 3, object()] + ([None] if none else []))


# ---------------------------------------------------------------- tiny models


def build_tiny_chat_lm():
    """(model, tokenizer): a random 1-layer ``LlamaForCausalLM`` over 200 words + 4 specials,
    with a chat template, so that chat/generation code runs in milliseconds without any file."""
    import torch
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast
    from transformers.utils import logging as hf_logging

    hf_logging.set_verbosity_error()
    specials = ["<pad>", "<s>", "</s>", "<unk>"]
    vocab = {w: i for i, w in enumerate(specials + [f"w{i}" for i in range(200)])}
    core = Tokenizer(models.WordLevel(vocab, unk_token="<unk>"))
    core.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=core,
        pad_token="<pad>",
        bos_token="<s>",
        eos_token="</s>",
        unk_token="<unk>",
    )
    tokenizer.chat_template = (
        "{% for m in messages %}{{ m['content'] }} {% endfor %}"
        "{% if add_generation_prompt %}w0 {% endif %}"
    )
    torch.manual_seed(0)
    config = LlamaConfig(
        vocab_size=len(vocab),
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=1,
        num_attention_heads=2,
        num_key_value_heads=2,
        max_position_embeddings=256,
        pad_token_id=0,
        bos_token_id=1,
        eos_token_id=2,
        tie_word_embeddings=True,
    )
    return LlamaForCausalLM(config).eval(), tokenizer
