"""Shared fixtures: a tiny chat model (word tokenizer + 1-layer Llama), built in memory; and the
hypothesis profiles of the bad-input suite (``HYPOTHESIS_PROFILE=deep`` for many more examples)."""

import os

import pytest
from badinput import build_tiny_chat_lm
from hypothesis import HealthCheck, settings

# The bad-input suite (tests/test_bad_input_*.py): few, reproducible examples in `make test`; the
# deep profile explores. No deadline: each call has its own hard 1 s guard (tests/badinput.py),
# which does not count building the valid arguments. No example database in the work tree.
_QUIET = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much]
settings.register_profile(
    "quick",
    max_examples=10,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=_QUIET,
)
settings.register_profile(
    "deep", max_examples=200, deadline=None, database=None, suppress_health_check=_QUIET
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "quick"))


#: Libraries that the package imports lazily inside functions (seconds each on a cold start,
#: more on a loaded machine). Imported once here, so that an import never counts against the
#: bad-input suite's 1 s guard (a cold `import shapiq` under load tripped it once in CI).
_LAZY_IMPORTS = (
    "ot",
    "shap",
    "shapiq.approximator",
    "peft.utils.merge_utils",
    "opacus",
    "statsmodels.api",
    "scipy.stats",
    "sklearn.decomposition",
    "safetensors.torch",
)


@pytest.fixture(scope="session", autouse=True)
def _warm_lazy_imports():
    import importlib

    for name in _LAZY_IMPORTS:
        importlib.import_module(name)


@pytest.fixture(scope="session")
def tiny_chat_lm():
    """(model, tokenizer): a random 1-layer ``LlamaForCausalLM`` over 200 words + 4 specials,
    with a chat template, so that chat/generation code runs in milliseconds without any file."""
    return build_tiny_chat_lm()
