"""Bad-input suite of icml25.disco (see badinput.py)."""

from functools import cache

import numpy as np
import torch
from badinput import (
    Spec,
    bad_choice,
    bad_input_test,
    bad_int,
    bad_probability,
    bad_real,
    bad_seed,
    not_a,
    not_none,
    valid_input_test,
)
from hypothesis import strategies as st

from icml25 import disco as dc

torch.set_num_threads(1)

P = "icml25.disco"


@cache
def _movies():
    return dc.make_movies(4, seed=0)


@cache
def _split():
    return dc.make_split(_movies(), exposures=(1, 2), n_eval=2, seed=0)


@cache
def _model():
    return dc.build_title_vlm(_split(), seed=0, cnn_width=4, n_embd=8)


_CKPT_CONFIG = {"n_movies": 4, "n_eval": 2, "epochs": 1, "cnn_width": 4, "n_embd": 8}


@cache
def _ckpt_dir():
    import tempfile

    return tempfile.mkdtemp(prefix="disco-ckpt-")


@cache
def _saved_ckpt_dir():
    import tempfile

    d = tempfile.mkdtemp(prefix="disco-ckpt-saved-")
    dc.save_trained(_model(), {"loss": [1.0], "n_sequences": 1}, _CKPT_CONFIG, "small", 0, d)
    return d


def _frames():
    return _split().eval.frames[:2]


FR = np.zeros((2, 32, 32, 3), np.float32)
BAD_FRAMES = st.sampled_from(
    [FR[:, :16], FR[0], FR + 2.0, FR - 1.0, np.full_like(FR, np.nan), FR.astype(int), FR[:0]]
    + ["abc", [1, 2], 3]
)
BAD_MOVIE = not_a(_movies()[0].title)
BAD_SPLIT = not_a()
BAD_MODEL = not_a()
KIND = bad_choice(dc.KINDS)
BAD_DEVICE = st.sampled_from([3, "not-a-device", ["cpu"], 1.5])

SPECS: dict[str, Spec] = {
    f"{P}.make_movies": Spec(
        dc.make_movies, {"n_movies": 3, "seed": 0}, {"n_movies": bad_int(2), "seed": bad_seed()}
    ),
    f"{P}.render_frame": Spec(
        dc.render_frame,
        lambda: {"movie": _movies()[0], "kind": "main", "rng": np.random.default_rng(0)},
        {"movie": BAD_MOVIE, "kind": KIND, "rng": not_a(0, none=False)},
        finite=True,
    ),
    f"{P}.caption": Spec(
        dc.caption,
        lambda: {"movie": _movies()[0], "kind": "neutral", "rng": np.random.default_rng(0)},
        {"movie": BAD_MOVIE, "kind": KIND, "rng": not_a(0, none=False)},
    ),
    f"{P}.make_split": Spec(
        dc.make_split,
        lambda: {
            "movies": _movies(),
            "exposures": (1, 2),
            "n_suspect": 2,
            "n_eval": 1,
            "seed": 0,
        },
        {
            "movies": st.sampled_from([[], "abc", None, ["x"], [_movies()[0]], 3]),
            "exposures": st.sampled_from([(), (0, 2), (-1,), (1.5,), "12", None, (True,)]),
            "n_suspect": st.one_of(bad_int(1).filter(lambda v: v is not None), st.just(4)),
            "n_eval": bad_int(1),
            "seed": bad_seed(),
        },
    ),
    f"{P}.normalise_title": Spec(
        dc.normalise_title, {"text": "The Foo"}, {"text": st.sampled_from([None, 3, ["a"]])}
    ),
    f"{P}.match_title": Spec(
        dc.match_title,
        {"guess": "foo bar", "title": "The Foo Bar", "threshold": 90},
        {
            "guess": st.sampled_from([None, 3, ["a"]]),
            "title": st.sampled_from([None, 3, ["a"], "", "!!"]),
            "threshold": bad_real(0.0, 100.0, low_open=True),
        },
    ),
    f"{P}.detection_auc": Spec(
        dc.detection_auc,
        {"scores": [0.1, 0.5, 0.3, 0.9], "labels": [0, 1, 0, 1]},
        {
            "scores": st.sampled_from([[0.1, np.nan, 0.3, 0.9], [0.1, 0.2], "abc", None, 3]),
            "labels": st.sampled_from([[1, 1, 1, 1], [0, 0, 0, 0], [0, 1], [0, 2, 0, 1], None]),
        },
        finite=True,
    ),
    f"{P}.TitleVLM": Spec(
        dc.TitleVLM,
        lambda: {"net": _model().net, "tokenizer": _model().tok, "batch_size": 8},
        {"net": not_a(), "tokenizer": not_a(), "batch_size": bad_int(1)},
    ),
    f"{P}.TitleVLM.guess": Spec(
        dc.TitleVLM.guess,
        lambda: {"self": _model(), "frames": _frames(), "captions": None},
        {"frames": BAD_FRAMES},
        free=("self", "captions"),
    ),
    f"{P}.TitleVLM.title_logprob": Spec(
        dc.TitleVLM.title_logprob,
        lambda: {"self": _model(), "frames": _frames(), "titles": ["Ab Cd", "Ef Gh"]},
        {
            "frames": BAD_FRAMES,
            "titles": st.sampled_from([["a"], "ab", None, ["", "Ab"], ["Ab~", "Cd"], [3, "Ab"]]),
        },
        free=("self",),
        finite=True,
    ),
    f"{P}.build_title_vlm": Spec(
        dc.build_title_vlm,
        lambda: {"split": _split(), "seed": 0, "cnn_width": 4, "n_embd": 8, "device": "cpu"},
        {
            "split": BAD_SPLIT,
            "seed": bad_seed(),
            "cnn_width": bad_int(1),
            "n_embd": st.one_of(bad_int(4), st.just(6)),
            "device": BAD_DEVICE,
        },
    ),
    f"{P}.TitleVLM.to": Spec(
        dc.TitleVLM.to,
        lambda: {"self": _model(), "device": "cpu"},
        {"device": st.sampled_from([3, "not-a-device", ["cpu"]])},
        free=("self",),
    ),
    f"{P}.checkpoint_path": Spec(
        dc.checkpoint_path,
        lambda: {"scale": "small", "seed": 3, "directory": _ckpt_dir()},
        {
            "scale": bad_choice(("small", "large")),
            "seed": bad_seed(),
            "directory": st.sampled_from([3, ["a"], b"x"]),
        },
    ),
    f"{P}.save_trained": Spec(
        dc.save_trained,
        lambda: {
            "model": _model(),
            "history": {"loss": [1.0], "n_sequences": 1},
            "config": _CKPT_CONFIG,
            "scale": "small",
            "seed": 0,
            "directory": _ckpt_dir(),
        },
        {
            "model": not_a(object()),
            "history": st.sampled_from([None, [1.0], {"losses": [1.0]}]),
            "config": st.sampled_from([None, {"n_movies": 4}, [1, 2]]),
            "scale": bad_choice(("small", "large")),
            "seed": bad_seed(),
            "directory": st.sampled_from([3, ["a"]]),
        },
    ),
    f"{P}.load_trained": Spec(
        dc.load_trained,
        lambda: {
            "model": dc.build_title_vlm(_split(), seed=0, cnn_width=4, n_embd=8),
            "config": _CKPT_CONFIG,
            "scale": "small",
            "seed": 0,
            "directory": _saved_ckpt_dir(),
        },
        {
            "model": not_a(object()),
            "config": st.sampled_from(
                [None, {"n_movies": 4}, [1, 2], {**_CKPT_CONFIG, "epochs": 2}]
            ),
            "scale": bad_choice(("small", "large")),
            "seed": bad_seed(),
            "directory": st.sampled_from([3, ["a"]]),
        },
    ),
    f"{P}.prepare_runs": Spec(
        dc.prepare_runs,
        lambda: {
            "scale": "small",
            "seeds": (0,),
            "device": "cpu",
            "progress": False,
            "n_movies": 4,
            "n_eval": 1,
            "epochs": 1,
            "cnn_width": 4,
            "n_embd": 8,
        },
        {
            "scale": bad_choice(("small", "large")),
            "seeds": st.sampled_from([(), "3", 3, (-1,), (1.5,), None]).filter(
                lambda v: v is not None
            ),
            "device": BAD_DEVICE,
            "progress": st.sampled_from([1, "yes", None]),
            "pretrained": st.sampled_from([1, "yes", None]),
            "n_movies": not_none(bad_int(4)),
            "n_eval": not_none(bad_int(1)),
            "epochs": not_none(bad_int(1)),
            "cnn_width": not_none(bad_int(1)),
            "n_embd": st.one_of(not_none(bad_int(4)), st.just(6)),
        },
    ),
    f"{P}.train_title_vlm": Spec(
        dc.train_title_vlm,
        lambda: {
            "model": _model(),
            "split": _split(),
            "epochs": 1,
            "lr": 1e-9,
            "seed": 0,
            "batch_size": 64,
            "progress": False,
        },
        {
            "model": BAD_MODEL,
            "split": BAD_SPLIT,
            "epochs": bad_int(1),
            "lr": bad_real(0.0, None, low_open=True),
            "seed": bad_seed(),
            "batch_size": bad_int(1),
        },
        free=("progress",),
    ),
    f"{P}.frame_hits": Spec(
        dc.frame_hits,
        lambda: {"model": _model(), "split": _split(), "frame_kind": "main", "route": "image"},
        {
            "model": BAD_MODEL,
            "split": BAD_SPLIT,
            "frame_kind": KIND,
            "route": bad_choice(("image", "caption")),
        },
    ),
    f"{P}.disco_scores": Spec(
        dc.disco_scores,
        lambda: {"model": _model(), "split": _split(), "frame_kind": "main"},
        {"model": BAD_MODEL, "split": BAD_SPLIT, "frame_kind": KIND},
        free=("discount_captions",),
    ),
    f"{P}.mcqa_scores": Spec(
        dc.mcqa_scores,
        lambda: {"model": _model(), "split": _split(), "n_options": 2, "distractors": "others"},
        {
            "model": BAD_MODEL,
            "split": BAD_SPLIT,
            "frame_kind": KIND,
            "n_options": st.one_of(bad_int(2), st.just(5)),
            "distractors": bad_choice(("others", "decoys")),
            "seed": bad_seed(),
        },
        free=("normalise",),
    ),
    f"{P}.mia_scores": Spec(
        dc.mia_scores,
        lambda: {"model": _model(), "split": _split(), "method": "min_k", "k": 0.2},
        {
            "model": BAD_MODEL,
            "split": BAD_SPLIT,
            "method": bad_choice(dc.MIA_METHODS),
            "k": bad_probability(low_open=True),
            "frame_kind": KIND,
        },
    ),
    f"{P}.oracle_scores": Spec(
        dc.oracle_scores,
        lambda: {"model": _model(), "split": _split()},
        {"model": BAD_MODEL, "split": BAD_SPLIT, "frame_kind": KIND},
    ),
}

SPECS[f"{P}.all_scores"] = Spec(
    dc.all_scores,
    lambda: {"model": _model(), "split": _split(), "frame_kind": "main", "seed": 0},
    {"model": BAD_MODEL, "split": BAD_SPLIT, "frame_kind": KIND, "seed": bad_seed()},
)

CONSTANTS = {
    f"{P}.RUN_CONFIGS",
    f"{P}.METHODS",
    f"{P}.KINDS",
    f"{P}.MIA_METHODS",
    f"{P}.COLOURS",
    f"{P}.PROPS",
}
RESULTS: dict[str, str] = {
    f"{P}.MovieSpec": "a movie card built by make_movies",
    f"{P}.FrameSet": "frames built by make_split",
    f"{P}.Split": "the split built by make_split",
    f"{P}.SeedRun": "one seed's split and models, built by prepare_runs",
}

test_bad_input_is_rejected = bad_input_test(SPECS)
test_valid_input_runs = valid_input_test(SPECS)
