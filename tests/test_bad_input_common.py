"""Bad-input suite of icml25.common (and its lm, training, pretrained modules): see badinput.py."""

from functools import cache

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import torch
from badinput import (
    Spec,
    bad_array,
    bad_choice,
    bad_index_array,
    bad_input_test,
    bad_int,
    bad_positive,
    bad_real,
    bad_seed,
    bad_tensor,
    build_tiny_chat_lm,
    not_a,
    not_int,
    not_none,
    valid_input_test,
)
from hypothesis import strategies as st

from icml25.common import (
    checks,
    glue,
    lm,
    paths,
    plotting,
    pretrained,
    runtime,
    time_call,
    training,
)

P = "icml25.common"


@cache
def _axes():
    fig, axes = plt.subplots(1, 2)
    return axes


@cache
def _gpt():
    return lm.build_causal_lm(12, n_positions=8, n_layer=1, n_embd=8, n_head=2)


@cache
def _chat():
    return build_tiny_chat_lm()


def _cnn():
    return training.SmallCNN(1, 3, size=8, ndim=1, width=2)


SEQ = np.array([[1, 2, 3], [4, 5, 6]])
X1 = np.zeros((4, 1, 8), dtype=np.float32)
Y1 = np.array([0, 1, 2, 0])


def _loop_args():
    model = torch.nn.Linear(2, 1)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    x = torch.ones(4, 2)
    return {
        "model": model,
        "opt": opt,
        "loss_fn": lambda idx: model(x[idx]).pow(2).mean(),
        "n": 4,
        "epochs": 1,
        "batch_size": 2,
        "generator": torch.Generator().manual_seed(0),
        "progress": False,
        "clip_norm": None,
    }


def _check(fn, value, bad, *, free=(), finite=False, **extra):
    """Spec of a check function: the message must name the ``name`` passed ("arg")."""
    return Spec(
        fn,
        {"name": "arg", "value": value, **extra},
        {"value": bad},
        free=("name", *free),
        names={"value": "arg"},
        finite=finite,
    )


SPECS: dict[str, Spec] = {
    # --- runtime, timing, glue
    f"{P}.scale": Spec(runtime.scale),
    f"{P}.get_device": Spec(runtime.get_device),
    f"{P}.seed_everything": Spec(runtime.seed_everything, {"seed": 0}, {"seed": bad_seed()}),
    f"{P}.setup": Spec(
        runtime.setup, {"seed": 0, "threads": 1}, {"seed": bad_seed(), "threads": bad_int(1)}
    ),
    f"{P}.time_call": Spec(
        time_call,
        {"fn": lambda: None, "repeats": 1, "min_time": 0.0},
        {"fn": not_a(3), "repeats": bad_int(1), "min_time": bad_real(0.0)},
        finite=True,
    ),
    f"{P}.glue": Spec(
        glue,
        {"name": "x", "value": 1.0, "display": False},
        {"name": st.sampled_from(["not a name", "", "1x", None, 3])},
        free=("value", "display"),
    ),
    # --- paths
    f"{P}.paths.repo_root": Spec(paths.repo_root),
    f"{P}.paths.data_dir": Spec(paths.data_dir),
    f"{P}.paths.book_dir": Spec(paths.book_dir),
    # --- plotting
    f"{P}.plotting.set_style": Spec(plotting.set_style),
    f"{P}.plotting.method_color": Spec(
        plotting.method_color, {"name": "ours"}, {"name": st.sampled_from(["", " ", None, 3])}
    ),
    f"{P}.plotting.method_colors": Spec(
        plotting.method_colors, {"names": ["ours", "x"]}, {"names": not_a("abc", [3], [""])}
    ),
    f"{P}.plotting.figsize": Spec(
        plotting.figsize, {"kind": "wide"}, {"kind": bad_choice(plotting.FIGSIZES)}
    ),
    f"{P}.plotting.panel_labels": Spec(
        plotting.panel_labels,
        lambda: {"axes": _axes(), "start": "a"},
        {
            "axes": not_a([1, 2], np.zeros((2, 2))),
            "start": st.sampled_from(["", "ab", "1", None, 3]),
        },
    ),
    f"{P}.plotting.plain_log_ticks": Spec(
        plotting.plain_log_ticks,
        lambda: {"ax": _axes()[0], "axis": "x"},
        {"ax": not_a([1]), "axis": bad_choice(("x", "y", "both"))},
    ),
    # --- checks (the message names the name passed in)
    f"{P}.checks.check_int": _check(
        checks.check_int, 3, bad_int(1, 5), free=("low", "high"), low=1, high=5
    ),
    f"{P}.checks.check_real": _check(
        checks.check_real,
        0.5,
        bad_real(0.0, 1.0),
        free=("low", "high", "low_open", "high_open"),
        finite=True,
        low=0.0,
        high=1.0,
    ),
    f"{P}.checks.check_positive": _check(checks.check_positive, 2.0, bad_positive(), finite=True),
    f"{P}.checks.check_probability": _check(
        checks.check_probability,
        0.5,
        bad_real(0.0, 1.0),
        free=("low_open", "high_open"),
        finite=True,
    ),
    f"{P}.checks.check_array": _check(
        checks.check_array, np.ones((2, 2)), bad_array(np.ones((2, 2))), free=("ndim",), ndim=2
    ),
    f"{P}.checks.check_finite_array": _check(
        checks.check_finite_array,
        [[1.0, 2.0]],
        bad_array(np.ones((1, 2))),
        free=("ndim", "min_size"),
        finite=True,
        ndim=2,
    ),
    f"{P}.checks.check_probabilities": _check(
        checks.check_probabilities,
        [0.0, 1.0],
        st.one_of(bad_array(np.ones(2)), st.just([0.5, 1.5]), st.just([-0.1])),
        free=("ndim",),
        finite=True,
        ndim=1,
    ),
    f"{P}.checks.check_index_array": _check(
        checks.check_index_array,
        [0, 4],
        bad_index_array([0, 4], 5),
        free=("high", "low", "ndim", "min_size", "high_name"),
        high=5,
    ),
    f"{P}.checks.check_index": _check(
        checks.check_index, 2, bad_int(0, 4), free=("high", "low"), high=5
    ),
    f"{P}.checks.check_choice": _check(
        checks.check_choice, "a", bad_choice(("a", "b")), free=("choices",), choices=("a", "b")
    ),
    f"{P}.checks.check_seed": _check(checks.check_seed, 0, bad_seed()),
    f"{P}.checks.check_rng": _check(
        checks.check_rng,
        np.random.default_rng(0),
        not_a(0, np.random.RandomState(0)),
        free=("default_seed",),
    ),
    f"{P}.checks.check_callable": _check(checks.check_callable, len, not_a()),
    f"{P}.checks.check_instance": _check(
        checks.check_instance, 1.0, not_a(), free=("cls",), cls=float
    ),
    f"{P}.checks.check_tensor": _check(
        checks.check_tensor,
        torch.ones(2, 2),
        bad_tensor(torch.ones(2, 2)),
        free=("ndim", "finite"),
        ndim=2,
    ),
    f"{P}.checks.check_symmetric": _check(
        checks.check_symmetric,
        np.eye(2),
        st.one_of(
            bad_array(np.eye(2)), st.just(np.triu(np.ones((2, 2)))), st.just(np.ones((2, 3)))
        ),
    ),
    f"{P}.checks.check_texts": _check(
        checks.check_texts, ["a"], st.sampled_from(["a", [], [""], ["a", 1], None, 3])
    ),
    f"{P}.checks.check_device": _check(
        checks.check_device,
        "cpu",
        st.sampled_from([3, "not-a-device", ["cpu"], 1.5]),
        free=("allow_none",),
    ),
    # --- lm
    f"{P}.lm.CharTokenizer": Spec(
        lm.CharTokenizer, {"alphabet": "abc"}, {"alphabet": st.sampled_from(["", "aa", None, 3])}
    ),
    f"{P}.lm.CharTokenizer.encode": Spec(
        lm.CharTokenizer.encode,
        {"self": lm.CharTokenizer("abc"), "text": "cab"},
        {"text": st.sampled_from(["abz", None, 3, ["a"]])},
        free=("self",),
    ),
    f"{P}.lm.CharTokenizer.decode": Spec(
        lm.CharTokenizer.decode,
        {"self": lm.CharTokenizer("abc"), "ids": [0, 1, 3]},
        {"ids": bad_index_array([0, 1, 3], 4)},
        free=("self",),
    ),
    f"{P}.lm.build_causal_lm": Spec(
        lm.build_causal_lm,
        {"vocab_size": 5, "n_positions": 4, "n_layer": 1, "n_embd": 4, "n_head": 2, "seed": 0},
        {
            "vocab_size": bad_int(2),
            "n_positions": bad_int(2),
            "n_layer": bad_int(1),
            "n_embd": st.one_of(bad_int(1), st.just(5)),
            "n_head": st.one_of(bad_int(1), st.just(3)),
            "seed": bad_seed(),
        },
    ),
    f"{P}.lm.train_lm": Spec(
        lm.train_lm,
        lambda: {
            "model": _gpt(),
            "sequences": SEQ,
            "epochs": 1,
            "batch_size": 2,
            "lr": 1e-3,
            "seed": 0,
            "progress": False,
        },
        {
            "model": not_a(torch.nn.Linear(2, 2)),
            "sequences": st.one_of(
                bad_index_array(SEQ, 12, low=1), st.just(np.ones((2, 9), int)), st.just(SEQ[0])
            ),
            "epochs": bad_int(1),
            "batch_size": bad_int(1),
            "lr": bad_positive(),
            "seed": bad_seed(),
        },
        free=("progress",),
        finite=True,
    ),
    f"{P}.lm.sequence_perplexity": Spec(
        lm.sequence_perplexity,
        lambda: {"model": _gpt(), "sequences": SEQ, "batch_size": 4},
        {
            "model": not_a(torch.nn.Linear(2, 2)),
            "sequences": st.one_of(bad_index_array(SEQ, 12, low=1), st.just(np.ones((2, 9), int))),
            "batch_size": bad_int(1),
        },
        finite=True,
    ),
    # --- training
    f"{P}.training.SmallCNN": Spec(
        training.SmallCNN,
        {"in_channels": 1, "n_classes": 2, "size": 8, "ndim": 1, "width": 2},
        {
            "in_channels": bad_int(1),
            "n_classes": bad_int(2),
            "size": st.one_of(bad_int(4), st.just(6)),
            "ndim": st.one_of(st.sampled_from([0, 4, "2", None]), not_int()),
            "width": bad_int(1),
        },
    ),
    f"{P}.training.minibatch_training": Spec(
        training.minibatch_training,
        _loop_args,
        {
            "model": not_a(),
            "opt": not_a(),
            "loss_fn": not_a(),
            "n": bad_int(0),
            "epochs": bad_int(0),
            "batch_size": bad_int(1),
            "generator": not_a(np.random.default_rng(0)),
            "clip_norm": not_none(bad_positive()),
        },
        free=("progress",),
        finite=True,
    ),
    f"{P}.training.train_classifier": Spec(
        training.train_classifier,
        lambda: {
            "model": _cnn(),
            "X": X1,
            "y": Y1,
            "epochs": 1,
            "batch_size": 2,
            "lr": 1e-3,
            "seed": 0,
            "progress": False,
        },
        {
            "model": not_a(),
            "X": st.one_of(bad_array(X1, shape=False), st.just(X1[:3]), st.just(X1[..., :5])),
            "y": st.one_of(bad_index_array(Y1, 3), st.just(Y1[:3])),
            "epochs": bad_int(1),
            "batch_size": bad_int(1),
            "lr": bad_positive(),
            "seed": bad_seed(),
        },
        free=("progress",),
        finite=True,
    ),
    f"{P}.training.accuracy": Spec(
        training.accuracy,
        lambda: {"model": _cnn(), "X": X1, "y": Y1},
        {
            "model": not_a(),
            "X": st.one_of(bad_array(X1, shape=False), st.just(X1[:3])),
            "y": st.one_of(bad_index_array(Y1, 3), st.just(Y1[:3])),
        },
        finite=True,
    ),
    # --- pretrained (the loaders only with bad arguments: they read model files)
    f"{P}.pretrained.smollm2_available": Spec(pretrained.smollm2_available),
    f"{P}.pretrained.minilm_available": Spec(pretrained.minilm_available),
    f"{P}.pretrained.default_cache_dir": Spec(pretrained.default_cache_dir),
    f"{P}.pretrained.load_smollm2": Spec(
        pretrained.load_smollm2,
        {"cache_dir": None, "device": None},
        {"cache_dir": st.sampled_from([3, 1.5, ["x"]]), "device": not_a("gpu9", none=False)},
        run_valid=False,
    ),
    f"{P}.pretrained.load_minilm": Spec(
        pretrained.load_minilm, {"device": None}, {"device": not_a(none=False)}, run_valid=False
    ),
    f"{P}.pretrained.text_perplexity": Spec(
        pretrained.text_perplexity,
        lambda: {"model": _chat()[0], "tokenizer": _chat()[1], "texts": ["w1 w2"], "batch_size": 2},
        {
            "model": not_a(),
            "tokenizer": st.sampled_from([None, 3]),
            "texts": st.sampled_from(["w1", [], [""], None]),
            "batch_size": bad_int(1),
        },
        finite=True,
    ),
    f"{P}.pretrained.finetune_on_texts": Spec(
        pretrained.finetune_on_texts,
        lambda: {
            "model": _chat()[0],
            "tokenizer": _chat()[1],
            "texts": ["w1 w2"],
            "epochs": 1,
            "lr": 1e-9,
            "batch_size": 1,
            "seed": 0,
            "progress": False,
        },
        {
            "model": not_a(),
            "tokenizer": st.sampled_from([None, 3]),
            "texts": st.sampled_from(["w1", [], [""], None]),
            "epochs": bad_int(1),
            "lr": bad_positive(),
            "batch_size": bad_int(1),
            "seed": bad_seed(),
        },
        free=("progress",),
        finite=True,
    ),
}

# Not functions: data the package exports (checked to be plain data by the coverage test).
CONSTANTS = {
    f"{P}.SCALES",
    f"{P}.checks.SEED_HIGH",
    f"{P}.plotting.PALETTE",
    f"{P}.plotting.FIGSIZES",
    f"{P}.plotting.METHOD_COLORS",
    f"{P}.lm.BOS",
    f"{P}.pretrained.SMOLLM2_PACKAGE",
    f"{P}.pretrained.SMOLLM2_FILE",
    f"{P}.pretrained.SMOLLM2_INSTALL",
    f"{P}.pretrained.MINILM_PACKAGE",
    f"{P}.pretrained.MINILM_INSTALL",
}

test_bad_input_is_rejected = bad_input_test(SPECS)
test_valid_input_runs = valid_input_test(SPECS)
