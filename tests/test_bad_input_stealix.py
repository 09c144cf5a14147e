"""Bad-input suite of icml25.stealix (see badinput.py)."""

from functools import cache

import numpy as np
from badinput import (
    Spec,
    bad_choice,
    bad_input_test,
    bad_int,
    bad_positive,
    bad_real,
    bad_seed,
    not_a,
    valid_input_test,
)
from hypothesis import strategies as st

from icml25 import stealix as sx

P = "icml25.stealix"
RNG = np.random.default_rng(0)
X = RNG.integers(0, 17, (12, 64)).astype(float)
Y = np.arange(12) % 10
PROMPT = {
    "char": "3",
    "font": "DejaVuSans",
    "weight": 0,
    "slant": 0.0,
    "rotation": 0,
    "aspect": 1.0,
    "background": "none",
    "polarity": "normal",
    "scale": "full",
}


def bad_images(valid, none: bool = True):
    """Not (N, 64), outside 0..16, NaN, wrong dtype, not an array."""
    arr = np.asarray(valid, float)
    out = arr.copy()
    out[0, 0] = 17.0
    neg = arr.copy()
    neg[0, 0] = -1.0
    nan = arr.copy()
    nan[0, 0] = np.nan
    options = [out, neg, nan, arr[:, :63], arr[0], arr[:0], arr.astype(str), "abc", [1, 2]]
    return st.sampled_from(options + ([None] if none else []))


BAD_PROMPT = st.sampled_from(
    [
        {**PROMPT, "char": "#"},
        {**PROMPT, "weight": 7},
        {**PROMPT, "weight": 1.0},
        {**PROMPT, "polarity": "upside"},
        {k: v for k, v in PROMPT.items() if k != "scale"},
        {**PROMPT, "colour": "red"},
        "3",
        None,
        ["3"],
    ]
)
BAD_ROW = st.sampled_from([X[0, :10], X[:2], X[0] + 20, np.full(64, np.nan), "abc", None])
BAD_SET = st.sampled_from([X[:, :10], X[0], X + 20, "abc", None])
BAD_SEEDS = st.one_of(bad_images(X[:10]), st.just(X[:9]))


@cache
def _world():
    Xtr, ytr, Xte, yte = sx.load_victim_data(seed=0)
    victim = sx.train_victim(Xtr[:300], ytr[:300], hidden=16, seed=0)
    return victim, sx.GlyphGenerator(seed=0)


@cache
def _vlm():
    return sx.train_dual_encoder(_world()[1], n_pairs=64, epochs=1, dim=4, seed=0)


@cache
def _cvae():
    return sx.train_cvae(_world()[1], n_pairs=8, epochs=1, latent=2, hidden=4, seed=0, device="cpu")


@cache
def _surrogate():
    return sx.train_surrogate(X, Y, hidden=4, seed=0)


def _victim():
    v = _world()[0]
    v.reset()
    return v


BAD_VICTIM = not_a()
BAD_GEN = not_a()
BAD_VLM = not_a()

SPECS: dict[str, Spec] = {
    f"{P}.load_victim_data": Spec(sx.load_victim_data, {"seed": 0}, {"seed": bad_seed()}),
    f"{P}.BudgetExceeded": Spec(
        sx.BudgetExceeded, {"message": "over"}, {"message": st.sampled_from([None, 3, ["a"]])}
    ),
    f"{P}.train_victim": Spec(
        sx.train_victim,
        {"Xtr": X, "ytr": Y, "hidden": 4, "seed": 0},
        {
            "Xtr": bad_images(X),
            "ytr": st.sampled_from([Y[:5], Y + 20, Y.astype(float), "abc", None]),
            "hidden": bad_int(1),
            "seed": bad_seed(),
        },
    ),
    f"{P}.BlackBoxVictim": Spec(
        sx.BlackBoxVictim,
        lambda: {"model": _world()[0]._model, "budget": None},
        {"model": not_a(), "budget": st.one_of(bad_int(0).filter(lambda v: v is not None))},
    ),
    f"{P}.BlackBoxVictim.query": Spec(
        sx.BlackBoxVictim.query,
        lambda: {"self": _victim(), "X": X},
        {"X": bad_images(X)},
        free=("self",),
    ),
    f"{P}.BlackBoxVictim.features": Spec(
        sx.BlackBoxVictim.features,
        lambda: {"self": _victim(), "X": X},
        {"X": bad_images(X)},
        free=("self",),
    ),
    f"{P}.BlackBoxVictim.reset": Spec(
        sx.BlackBoxVictim.reset,
        lambda: {"self": _victim(), "budget": None},
        {"budget": bad_int(0).filter(lambda v: v is not None)},
        free=("self",),
    ),
    f"{P}.GlyphGenerator": Spec(
        sx.GlyphGenerator,
        {"fonts": None, "noise": 0.1, "seed": 0},
        {
            "fonts": st.sampled_from([(), ("Comic",), "DejaVuSans", 3, ("DejaVuSans", 1)]),
            "noise": bad_real(0.0, 1.0, low_open=True, high_open=True).filter(
                lambda v: v not in (0.0, 1.0)
            ),
            "seed": bad_seed(),
        },
    ),
    f"{P}.GlyphGenerator.generate": Spec(
        sx.GlyphGenerator.generate,
        lambda: {"self": _world()[1], "prompt": PROMPT, "m": 2, "seed": 0},
        {"prompt": BAD_PROMPT, "m": bad_int(1), "seed": bad_seed().filter(lambda v: v is not None)},
        free=("self",),
    ),
    f"{P}.GlyphGenerator.random_prompt": Spec(
        sx.GlyphGenerator.random_prompt,
        lambda: {"self": _world()[1], "rng": np.random.default_rng(0)},
        {"rng": not_a(0)},
        free=("self",),
    ),
    f"{P}.GlyphGenerator.check_prompt": Spec(
        sx.GlyphGenerator.check_prompt,
        lambda: {"self": _world()[1], "prompt": PROMPT, "name": "prompt"},
        {"prompt": BAD_PROMPT},
        free=("self", "name"),
    ),
    f"{P}.CVAEGenerator": Spec(
        sx.CVAEGenerator,
        {"vocab": sx.SLOTS, "latent": 2, "hidden": 4, "emb": 2, "seed": 0},
        {
            "vocab": st.sampled_from(["abc", None, 3, {}, {"char": ()}, {"char": "3"}]),
            "latent": bad_int(1),
            "hidden": bad_int(1),
            "emb": bad_int(1),
            "seed": bad_seed(),
        },
    ),
    f"{P}.CVAEGenerator.generate": Spec(
        sx.CVAEGenerator.generate,
        lambda: {"self": _cvae(), "prompt": PROMPT, "m": 2, "seed": 0},
        {"prompt": BAD_PROMPT, "m": bad_int(1), "seed": bad_seed().filter(lambda v: v is not None)},
        free=("self",),
        finite=True,
    ),
    f"{P}.CVAEGenerator.random_prompt": Spec(
        sx.CVAEGenerator.random_prompt,
        lambda: {"self": _cvae(), "rng": np.random.default_rng(0)},
        {"rng": not_a(0)},
        free=("self",),
    ),
    f"{P}.CVAEGenerator.check_prompt": Spec(
        sx.CVAEGenerator.check_prompt,
        lambda: {"self": _cvae(), "prompt": PROMPT, "name": "prompt"},
        {"prompt": BAD_PROMPT},
        free=("self", "name"),
    ),
    f"{P}.train_cvae": Spec(
        sx.train_cvae,
        lambda: {
            "generator": _world()[1],
            "n_pairs": 8,
            "epochs": 1,
            "latent": 2,
            "hidden": 4,
            "beta": 4.0,
            "seed": 0,
            "device": "cpu",
        },
        {
            "generator": st.one_of(BAD_GEN, st.builds(_cvae)),
            "n_pairs": bad_int(2),
            "epochs": bad_int(1),
            "latent": bad_int(1),
            "hidden": bad_int(1),
            "beta": bad_positive(),
            "seed": bad_seed(),
            "device": st.sampled_from([3, 1.5, "no-such-device", ["cpu"]]),
        },
    ),
    f"{P}.train_dual_encoder": Spec(
        sx.train_dual_encoder,
        lambda: {"generator": _world()[1], "n_pairs": 8, "epochs": 1, "dim": 4, "seed": 0},
        {
            "generator": BAD_GEN,
            "n_pairs": bad_int(2),
            "epochs": bad_int(1),
            "dim": bad_int(2),
            "seed": bad_seed(),
        },
    ),
    f"{P}.DualEncoder": Spec(
        sx.DualEncoder,
        {"vocab": sx.SLOTS, "dim": 4},
        {"vocab": st.sampled_from(["abc", None, 3]), "dim": bad_int(1)},
    ),
    f"{P}.DualEncoder.encode_image": Spec(
        sx.DualEncoder.encode_image,
        lambda: {"self": _vlm(), "X": X},
        {"X": bad_images(X)},
        free=("self",),
        finite=True,
    ),
    f"{P}.DualEncoder.encode_text": Spec(
        sx.DualEncoder.encode_text,
        lambda: {"self": _vlm(), "prompts": [PROMPT]},
        {"prompts": st.sampled_from([[], "abc", None, [{**PROMPT, "char": "#"}], [3]])},
        free=("self",),
        finite=True,
    ),
    f"{P}.DualEncoder.token_ids": Spec(
        sx.DualEncoder.token_ids,
        lambda: {"self": _vlm(), "prompts": [PROMPT]},
        {"prompts": st.sampled_from([[], "abc", None, [{**PROMPT, "scale": "huge"}], [3]])},
        free=("self",),
    ),
    f"{P}.stealix_loss": Spec(
        sx.stealix_loss,
        lambda: {
            "vlm": _vlm(),
            "prompt": PROMPT,
            "seed_img": X[0],
            "positives": X[:2],
            "negatives": X[2:4],
            "tau": 0.07,
        },
        {
            "vlm": BAD_VLM,
            "prompt": BAD_PROMPT,
            "seed_img": BAD_ROW,
            "positives": BAD_SET,
            "negatives": BAD_SET,
            "tau": bad_positive(),
        },
        finite=True,
    ),
    f"{P}.refine_prompt": Spec(
        sx.refine_prompt,
        lambda: {
            "vlm": _vlm(),
            "seed_img": X[0],
            "positives": X[:2],
            "negatives": np.zeros((0, 64)),
            "init_prompt": PROMPT,
            "tau": 0.07,
            "sweeps": 1,
        },
        {
            "vlm": BAD_VLM,
            "seed_img": BAD_ROW,
            "positives": BAD_SET,
            "negatives": BAD_SET,
            "init_prompt": BAD_PROMPT,
            "tau": bad_positive(),
            "sweeps": bad_int(1),
        },
    ),
    f"{P}.invert_prompt": Spec(
        sx.invert_prompt,
        lambda: {"vlm": _vlm(), "image": X[0], "seed": 0},
        {"vlm": BAD_VLM, "image": BAD_ROW, "seed": bad_seed()},
    ),
    f"{P}.prompt_consistency": Spec(
        sx.prompt_consistency,
        lambda: {
            "prompt": PROMPT,
            "cls": 3,
            "generator": _world()[1],
            "victim": _victim(),
            "m": 2,
            "seed": 0,
        },
        {
            "prompt": BAD_PROMPT,
            "cls": bad_int(0, 9),
            "generator": BAD_GEN,
            "victim": BAD_VICTIM,
            "m": bad_int(1),
            "seed": bad_seed(),
        },
        finite=True,
    ),
    f"{P}.ga_select": Spec(
        sx.ga_select,
        {"fitness": np.array([0.2, 0.5]), "k": 3, "rng": np.random.default_rng(0)},
        {
            "fitness": st.sampled_from(
                [
                    np.array([0.2, -0.1]),
                    np.array([np.nan, 1.0]),
                    np.array([]),
                    np.ones((2, 2)),
                    "abc",
                    None,
                    np.array(["a"]),
                ]
            ),
            "k": bad_int(0),
            "rng": not_a(0),
        },
    ),
    f"{P}.stealix_attack": Spec(
        sx.stealix_attack,
        lambda: {
            "victim": _victim(),
            "generator": _world()[1],
            "vlm": _vlm(),
            "seeds": X[:10],
            "budget_per_class": 2,
            "pop_size": 2,
            "m": 1,
            "ablation": None,
            "seed": 0,
        },
        {
            "victim": BAD_VICTIM,
            "generator": BAD_GEN,
            "vlm": BAD_VLM,
            "seeds": BAD_SEEDS,
            "budget_per_class": st.one_of(bad_int(1), st.just(0)),
            "pop_size": bad_int(2),
            "m": bad_int(1),
            "ablation": bad_choice(("no_refine", "no_pc", "no_ga")).filter(lambda v: v is not None),
            "seed": bad_seed(),
        },
    ),
    f"{P}.baseline_attack": Spec(
        sx.baseline_attack,
        lambda: {
            "kind": "inversion",
            "victim": _victim(),
            "generator": _world()[1],
            "budget_per_class": 1,
            "seeds": X[:10],
            "vlm": _vlm(),
            "pool": None,
            "m": 1,
            "seed": 0,
        },
        {
            "kind": bad_choice(sx.KINDS),
            "victim": BAD_VICTIM,
            "generator": BAD_GEN,
            "budget_per_class": bad_int(1),
            "seeds": BAD_SEEDS,
            "vlm": BAD_VLM,
            "m": bad_int(1),
            "seed": bad_seed(),
        },
        free=("pool",),
    ),
    f"{P}.train_surrogate": Spec(
        sx.train_surrogate,
        {"X": X, "y": Y, "hidden": 4, "seed": 0},
        {
            "X": bad_images(X),
            "y": st.sampled_from([Y[:5], Y - 20, Y.astype(float), "abc", None]),
            "hidden": bad_int(1),
            "seed": bad_seed(),
        },
    ),
    f"{P}.Surrogate": Spec(
        sx.Surrogate,
        {"model": None, "label": 0},
        {"model": not_a(none=False), "label": bad_int(0, 9)},
    ),
    f"{P}.Surrogate.predict": Spec(
        sx.Surrogate.predict,
        lambda: {"self": _surrogate(), "X": X},
        {"X": bad_images(X)},
        free=("self",),
    ),
    f"{P}.evaluate_surrogate": Spec(
        sx.evaluate_surrogate,
        lambda: {"model": _surrogate(), "victim": _victim(), "Xte": X, "yte": Y},
        {
            "model": not_a(),
            "victim": BAD_VICTIM,
            "Xte": bad_images(X),
            "yte": st.sampled_from([Y[:5], Y + 20, "abc", None]),
        },
        finite=True,
    ),
    f"{P}.feature_distance": Spec(
        sx.feature_distance,
        lambda: {"victim": _victim(), "images": X, "real": X[:4]},
        {"victim": BAD_VICTIM, "images": bad_images(X), "real": bad_images(X[:4])},
        finite=True,
    ),
}

CONSTANTS = {f"{P}.ABLATIONS", f"{P}.KINDS", f"{P}.SLOTS", f"{P}.FONTS"}
RESULTS: dict[str, str] = {}

test_bad_input_is_rejected = bad_input_test(SPECS)
test_valid_input_runs = valid_input_test(SPECS)
