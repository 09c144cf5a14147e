"""Every public name of the package is in the bad-input suite, and every argument is covered.

Public names: the ``__all__`` of ``icml25.common``, of each chapter subpackage and of the modules
imported on their own (``icml25.common.lm``, ``.training``, ``.pretrained``, ``icml25.spex.text``,
``icml25.stamp.llm``); a submodule listed in an ``__all__`` (``icml25.common.paths``) stands for
its own public names. Each must be a key of some ``SPECS`` (a callable with bad-input strategies),
of ``CONSTANTS`` (plain data) or of ``RESULTS`` (result records the package builds itself), or of
``EXEMPT`` below, with the reason. A new chapter's API cannot skip the suite.
"""

import dataclasses
import importlib
import inspect
import pkgutil
import types
from pathlib import Path

import pytest

import icml25

#: Every chapter subpackage of icml25 (found, not listed: a new chapter cannot be forgotten),
#: plus the modules that are imported on their own.
PACKAGES = sorted(
    {
        *(f"icml25.{m.name}" for m in pkgutil.iter_modules(icml25.__path__) if m.ispkg),
        "icml25.common.lm",
        "icml25.common.vlm",
        "icml25.common.training",
        "icml25.common.pretrained",
        "icml25.spex.text",
        "icml25.stamp.llm",
    }
)

#: Public names without a spec, and why (keep this short).
EXEMPT: dict[str, str] = {}

SUITE = sorted(p.stem for p in Path(__file__).parent.glob("test_bad_input_*.py"))
SUITE.remove("test_bad_input_coverage")
SUITE.remove("test_bad_input_regressions")


def _suite() -> tuple[dict, set, dict]:
    specs, constants, results = {}, set(), {}
    for name in SUITE:
        module = importlib.import_module(name)
        overlap = set(specs) & set(module.SPECS)
        assert not overlap, f"{name} repeats specs {sorted(overlap)}"
        specs.update(module.SPECS)
        constants |= getattr(module, "CONSTANTS", set())
        results.update(getattr(module, "RESULTS", {}))
    return specs, constants, results


def _public(module: types.ModuleType) -> list[str]:
    if hasattr(module, "__all__"):
        return list(module.__all__)
    return [
        name
        for name, obj in vars(module).items()
        if not name.startswith("_")
        and (getattr(obj, "__module__", None) == module.__name__ or name.isupper())
    ]


def _public_names() -> dict[str, object]:
    names: dict[str, object] = {}
    for package in PACKAGES:
        module = importlib.import_module(package)
        for name in _public(module):
            obj = getattr(module, name)
            if isinstance(obj, types.ModuleType):
                for sub in _public(obj):
                    names[f"{package}.{name}.{sub}"] = getattr(obj, sub)
            else:
                names[f"{package}.{name}"] = obj
    return names


SPECS, CONSTANTS, RESULTS = _suite()
PUBLIC = _public_names()


def test_every_public_name_is_in_the_suite():
    covered = set(SPECS) | CONSTANTS | set(RESULTS) | set(EXEMPT)
    missing = sorted(set(PUBLIC) - covered)
    assert not missing, f"public names without a bad-input spec: {missing}"
    stale = sorted((CONSTANTS | set(RESULTS) | set(EXEMPT)) - set(PUBLIC))
    assert not stale, f"entries for names that are not public: {stale}"


def test_constants_are_data_and_callables_have_specs():
    for key in CONSTANTS:
        assert not callable(PUBLIC[key]), f"{key} is callable: give it a spec"
    for key in RESULTS:
        assert dataclasses.is_dataclass(PUBLIC[key]), f"{key} is not a result record"
    for key, spec in SPECS.items():
        if key in PUBLIC:
            assert spec.fn is PUBLIC[key], f"the spec of {key} calls {spec.fn}"
        else:  # a method of a public class
            owner = PUBLIC.get(key.rsplit(".", 1)[0])
            assert isinstance(owner, type), f"{key} is neither public nor a public class's method"
            assert spec.fn is getattr(owner, key.rsplit(".", 1)[1]), key


@pytest.mark.parametrize("key", sorted(SPECS))
def test_every_argument_has_bad_values_or_is_free(key):
    spec = SPECS[key]
    params = [
        name
        for name, p in inspect.signature(spec.fn).parameters.items()
        if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
    ]
    listed = set(spec.bad) | set(spec.free)
    assert set(params) <= listed, f"{key}: no bad values for {sorted(set(params) - listed)}"
    assert listed <= set(params), f"{key}: not arguments: {sorted(listed - set(params))}"
    assert not set(spec.bad) & set(spec.free), f"{key}: both bad and free"
