"""Unit tests of icml25.common: scale switch, set-up, paths, plotting, timing."""

import random

import matplotlib
import matplotlib.pyplot as plt
import numpy as np
import pytest

from icml25.common import glue, paths, plotting, runtime, time_call


@pytest.mark.parametrize(
    ("raw", "expected"),
    [(None, "small"), ("", "small"), ("small", "small"), ("large", "large"), (" LARGE ", "large")],
)
def test_scale_reads_environment(monkeypatch, raw, expected):
    if raw is None:
        monkeypatch.delenv("ICML25_SCALE", raising=False)
    else:
        monkeypatch.setenv("ICML25_SCALE", raw)
    assert runtime.scale() == expected


def test_scale_rejects_unknown_value(monkeypatch):
    monkeypatch.setenv("ICML25_SCALE", "medium")
    with pytest.raises(ValueError, match="ICML25_SCALE"):
        runtime.scale()


def test_setup_seeds_threads_style_and_returns_scale(monkeypatch):
    import torch

    monkeypatch.setenv("ICML25_SCALE", "large")
    assert runtime.setup(seed=3) == "large"
    a = (random.random(), np.random.rand(), torch.rand(1).item())  # noqa: NPY002
    runtime.setup(seed=3)
    b = (random.random(), np.random.rand(), torch.rand(1).item())  # noqa: NPY002
    assert a == b
    assert torch.get_num_threads() == 1
    assert matplotlib.rcParams["figure.facecolor"] == "white"
    assert matplotlib.rcParams["savefig.dpi"] == 100


def test_setup_fails_early_on_bad_scale(monkeypatch):
    monkeypatch.setenv("ICML25_SCALE", "huge")
    with pytest.raises(ValueError, match="ICML25_SCALE"):
        runtime.setup()


@pytest.mark.parametrize(
    ("kwargs", "exc"),
    [({"seed": -1}, ValueError), ({"seed": 1.5}, TypeError), ({"threads": 0}, ValueError)],
)
def test_setup_rejects_bad_arguments(kwargs, exc):
    with pytest.raises(exc):
        runtime.setup(**kwargs)


def test_get_device_is_cpu_without_gpu():
    import torch

    expected = "cuda" if torch.cuda.is_available() else "cpu"
    assert runtime.get_device().type == expected


def test_paths_find_repo_root_from_anywhere(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    root = paths.repo_root()
    assert (root / "_config.yml").is_file()
    assert paths.data_dir() == root / "data"
    assert paths.data_dir().is_dir()
    assert paths.book_dir() == root / "book"


def test_method_color_is_stable_and_ours_is_first():
    assert plotting.method_color("ours") == plotting.PALETTE[0]
    assert plotting.method_color("Thresholding") == plotting.PALETTE[0]
    unknown = plotting.method_color("Some new method")
    assert unknown == plotting.method_color("Some new method")
    assert unknown in plotting.PALETTE[1:]
    assert plotting.method_colors(["ours"]) == {"ours": plotting.PALETTE[0]}


@pytest.mark.parametrize(("name", "exc"), [(3, TypeError), ("  ", ValueError)])
def test_method_color_rejects_bad_names(name, exc):
    with pytest.raises(exc, match="name"):
        plotting.method_color(name)


def test_figsize_and_panel_labels():
    assert plotting.figsize("wide") == plotting.FIGSIZES["wide"]
    with pytest.raises(ValueError, match="kind"):
        plotting.figsize("poster")
    fig, axes = plt.subplots(1, 2)
    plotting.panel_labels(axes)
    assert [t.get_text() for ax in axes for t in ax.texts] == ["(a)", "(b)"]
    plt.close(fig)


def test_plain_log_ticks():
    fig, ax = plt.subplots()
    ax.plot([1, 10, 100], [0.1, 1, 10])
    ax.set(xscale="log", yscale="log")
    plotting.plain_log_ticks(ax)
    fig.canvas.draw()
    labels = [t.get_text() for t in ax.get_xticklabels() if t.get_text()]
    assert "10" in labels and not any("^" in label for label in labels)
    with pytest.raises(ValueError, match="axis"):
        plotting.plain_log_ticks(ax, axis="z")
    plt.close(fig)


def test_time_call_returns_best_time_and_validates():
    calls = []
    seconds = time_call(lambda: calls.append(1), repeats=2)
    assert seconds >= 0 and len(calls) == 2
    with pytest.raises(ValueError, match="repeats"):
        time_call(lambda: None, repeats=0)
    with pytest.raises(TypeError, match="fn"):
        time_call(3)


def test_glue_stores_plain_python_numbers(monkeypatch):
    import myst_nb

    seen = {}
    monkeypatch.setattr(myst_nb, "glue", lambda name, value, display: seen.update({name: value}))
    glue("ratio", np.float64(0.5))
    glue("count", np.int64(3))
    assert seen == {"ratio": 0.5, "count": 3}
    assert type(seen["ratio"]) is float and type(seen["count"]) is int
    with pytest.raises(ValueError, match="name"):
        glue("not a name", 1.0)


def test_checks_name_the_argument():
    from icml25.common.checks import check_array, check_int, check_positive, check_symmetric

    assert check_int("k", np.int64(3)) == 3
    assert check_positive("lam", 2) == 2.0
    assert check_array("X", np.ones((2, 3), dtype=int), 2).dtype == float
    with pytest.raises(TypeError, match="k must be an int"):
        check_int("k", 2.5)
    with pytest.raises(TypeError, match="k"):
        check_int("k", True)
    with pytest.raises(ValueError, match=r"k must be in \[1, 5\]"):
        check_int("k", 6, 1, 5)
    with pytest.raises(ValueError, match="lam"):
        check_positive("lam", float("inf"))
    with pytest.raises(ValueError, match="X must have 2"):
        check_array("X", np.ones(3), 2)
    with pytest.raises(ValueError, match="X must be finite"):
        check_array("X", np.array([[np.nan]]), 2)
    with pytest.raises(ValueError, match="X must not be empty"):
        check_array("X", np.ones((0, 2)), 2)
    with pytest.raises(TypeError, match="X must hold real"):
        check_array("X", np.ones((2, 2), dtype=complex), 2)
    with pytest.raises(ValueError, match="S must be square"):
        check_symmetric("S", np.ones((2, 3)))
    with pytest.raises(ValueError, match="S must be symmetric"):
        check_symmetric("S", np.triu(np.ones((3, 3))))


def test_small_cnn_trains_on_a_separable_problem():
    import torch

    from icml25.common.training import SmallCNN, accuracy, train_classifier

    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 200)
    X = rng.normal(0, 0.1, (200, 1, 16)).astype(np.float32)
    X[y == 1, 0, :8] += 1.0
    net = SmallCNN(1, 2, size=16, ndim=1, width=4)
    losses = train_classifier(net, X, y, epochs=20, batch_size=32, lr=3e-3, progress=False)
    assert losses[-1] < losses[0]
    assert accuracy(net, X, y) > 0.95
    assert net(torch.zeros(3, 1, 16)).shape == (3, 2)
    with pytest.raises(ValueError, match="ndim"):
        SmallCNN(ndim=4)
    with pytest.raises(ValueError, match="size"):
        SmallCNN(size=18)


def test_check_texts():
    from icml25.common.checks import check_texts

    assert check_texts("texts", ("a", "b c")) == ["a", "b c"]
    assert check_texts("texts", np.array(["x"], dtype=object)) == ["x"]
    with pytest.raises(TypeError, match="texts must be a list"):
        check_texts("texts", "a b")
    with pytest.raises(TypeError, match="docs must be a list"):
        check_texts("docs", 3)
    with pytest.raises(ValueError, match="texts must be a non-empty"):
        check_texts("texts", [])
    with pytest.raises(ValueError, match="non-empty strings"):
        check_texts("texts", ["a", " "])
    with pytest.raises(ValueError, match="non-empty strings"):
        check_texts("texts", ["a", 1])


def test_the_bad_input_checks_return_clean_values_and_name_the_argument():
    import torch

    from icml25.common import checks

    assert checks.check_int("k", -3, None) == -3
    assert checks.check_real("x", np.float32(0.5), 0, 1) == 0.5
    assert checks.check_probability("p", 1) == 1.0
    with pytest.raises(ValueError, match=r"p must be a finite number in \(0, 1\)"):
        checks.check_probability("p", 1.0, low_open=True, high_open=True)
    with pytest.raises(ValueError, match="x must be a finite number"):
        checks.check_real("x", float("nan"))
    with pytest.raises(TypeError, match="x must be a real number"):
        checks.check_real("x", "1")
    out = checks.check_finite_array("w", [[1, 2]], ndim=2)
    assert out.dtype == float and out.shape == (1, 2)
    with pytest.raises(ValueError, match="w must be finite"):
        checks.check_finite_array("w", [1.0, float("inf")])
    with pytest.raises(TypeError, match="w must hold real numbers"):
        checks.check_finite_array("w", [True, False])
    with pytest.raises(ValueError, match="w must be a rectangular array"):
        checks.check_finite_array("w", [[1.0], [1.0, 2.0]])
    with pytest.raises(ValueError, match=r"q must lie in \[0, 1\]"):
        checks.check_probabilities("q", [0.2, 1.5])
    ids = checks.check_index_array("tokens", [0, 4], 5)
    assert ids.dtype == np.int64 and ids.tolist() == [0, 4]
    with pytest.raises(ValueError, match=r"tokens must hold indices in \[0, vocab=5\)"):
        checks.check_index_array("tokens", np.array([0, 5]), 5, high_name="vocab")
    with pytest.raises(ValueError, match="tokens"):
        checks.check_index_array("tokens", [-1], 5)  # never wrapped around
    with pytest.raises(TypeError, match="tokens must hold integers"):
        checks.check_index_array("tokens", [1.0], 5)  # never rounded
    assert checks.check_index("i", 4, 5) == 4
    with pytest.raises(ValueError, match="i"):
        checks.check_index("i", 5, 5)
    assert checks.check_choice("kind", "a", ("a", "b")) == "a"
    assert checks.check_choice("ndim", np.int64(2), (1, 2)) == 2
    with pytest.raises(ValueError, match="ndim must be one of"):
        checks.check_choice("ndim", 2.0, (1, 2))
    with pytest.raises(TypeError, match="kind must be one of"):
        checks.check_choice("kind", ["a"], ("a", "b"))
    assert checks.check_seed("seed", np.int64(7)) == 7
    with pytest.raises(ValueError, match="seed"):
        checks.check_seed("seed", 2**64)
    with pytest.raises(TypeError, match="seed"):
        checks.check_seed("seed", 1.0)
    rng = np.random.default_rng(1)
    assert checks.check_rng("rng", rng) is rng
    assert (
        checks.check_rng("rng", None, default_seed=0).random() == np.random.default_rng(0).random()
    )
    with pytest.raises(TypeError, match="rng must be a numpy Generator"):
        checks.check_rng("rng", None)
    assert checks.check_callable("fn", len) is len
    with pytest.raises(TypeError, match="fn must be callable"):
        checks.check_callable("fn", 3)
    with pytest.raises(TypeError, match="model must be a Module"):
        checks.check_instance("model", 3, torch.nn.Module)
    t = torch.ones(2, 2)
    assert checks.check_tensor("x", t, 2) is t
    with pytest.raises(ValueError, match="x must be finite"):
        checks.check_tensor("x", t * float("nan"))
    with pytest.raises(ValueError, match="x must have 3"):
        checks.check_tensor("x", t, 3)
