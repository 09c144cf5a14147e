"""Bad-input suite of icml25.wam (see badinput.py)."""

import numpy as np
import torch
from badinput import (
    Spec,
    bad_choice,
    bad_input_test,
    bad_int,
    bad_real,
    bad_seed,
    bad_tensor,
    not_a,
    valid_input_test,
)
from hypothesis import strategies as st

from icml25 import wam

P = "icml25.wam"
torch.manual_seed(0)
NET = torch.nn.Sequential(torch.nn.Flatten(), torch.nn.Linear(64, 3))  # (B, 1, 8, 8) -> 3 classes
X = torch.rand(2, 1, 8, 8)
COEFFS = wam.dwt(X, level=2)
ATTR = [c + 1.0 for c in COEFFS]
BAD_X = st.one_of(
    bad_tensor(X),
    st.sampled_from([X[..., :6], X.long(), X[:, :, :, :7]]),
)
BAD_LIST = st.one_of(
    not_a(X, COEFFS[0]),
    st.sampled_from(
        [
            COEFFS[:-1],
            COEFFS[:1],
            [COEFFS[0], *COEFFS[1:3], COEFFS[4], *COEFFS[4:]],
            [torch.full_like(c, float("nan")) for c in COEFFS],
            [*COEFFS[:-1], "abc"],
        ]
    ),
)
BAD_TARGET = st.one_of(
    bad_int(0, 2),
    st.sampled_from([1.5, torch.tensor([0.5, 1.0]), torch.tensor([0, 1, 2]), np.array([0.0, 1.0])]),
)


def _insdel():
    return {
        "model": NET,
        "x": X,
        "target": 1,
        "attr": ATTR,
        "domain": "wavelet",
        "steps": 4,
        "wavelet": "haar",
        "level": 2,
        "ndim": 2,
        "spacing": "log",
    }


SPECS: dict[str, Spec] = {
    f"{P}.dwt": Spec(
        wam.dwt,
        {"x": X, "wavelet": "haar", "level": 2, "ndim": 2},
        {
            "x": BAD_X,
            "wavelet": st.one_of(bad_choice(("haar",)), st.just("db4")),  # db4 is too long here
            "level": st.one_of(bad_int(1), st.just(4)),
            "ndim": st.sampled_from([0, 4, 1, 3, "2", 2.0, None]),
        },
        finite=True,
    ),
    f"{P}.idwt": Spec(
        wam.idwt,
        {"coeffs": COEFFS, "wavelet": "haar", "ndim": 2},
        {
            "coeffs": BAD_LIST,
            "wavelet": st.one_of(bad_choice(("haar",)), st.just("db2")),
            "ndim": st.sampled_from([0, 4, 1, 3, "2", None]),
        },
        finite=True,
    ),
    f"{P}.level_labels": Spec(
        wam.level_labels,
        {"level": 2, "ndim": 2},
        {"level": bad_int(1), "ndim": st.sampled_from([0, 4, "2", 2.0, None])},
    ),
    f"{P}.dyadic_layout": Spec(wam.dyadic_layout, {"attr": ATTR}, {"attr": BAD_LIST}, finite=True),
    f"{P}.scale_maps": Spec(wam.scale_maps, {"attr": ATTR}, {"attr": BAD_LIST}, finite=True),
    f"{P}.scale_importance": Spec(
        wam.scale_importance,
        {"attr": ATTR, "ndim": 2},
        {
            "attr": st.one_of(BAD_LIST, st.just([c * 0 for c in COEFFS])),
            "ndim": st.sampled_from([0, 4, 1, "2", None]),
        },
        finite=True,
    ),
    f"{P}.wam": Spec(
        wam.wam,
        {
            "model": NET,
            "x": X,
            "target": 1,
            "wavelet": "haar",
            "level": 2,
            "ndim": 2,
            "method": "smooth",
            "n_samples": 2,
            "noise": 0.25,
            "variant": "official",
            "seed": 0,
        },
        {
            "model": not_a(),
            "x": BAD_X,
            "target": BAD_TARGET,
            "wavelet": bad_choice(("haar",)),
            "level": st.one_of(bad_int(1), st.just(4)),
            "ndim": st.sampled_from([0, 4, 1, "2", None]),
            "method": bad_choice(wam.METHODS),
            "n_samples": bad_int(1),
            "noise": bad_real(0.0),
            "variant": bad_choice(wam.VARIANTS),
            "seed": bad_seed(),
        },
        finite=True,
    ),
    f"{P}.insertion_deletion": Spec(
        wam.insertion_deletion,
        _insdel,
        {
            "model": not_a(),
            "x": BAD_X,
            "target": BAD_TARGET,
            "attr": st.one_of(BAD_LIST, st.just(X)),
            "domain": bad_choice(("wavelet", "pixel")),
            "spacing": bad_choice(("linear", "log")),
            "steps": st.one_of(bad_int(1), st.just(65), st.just(10**6)),
            "wavelet": bad_choice(("haar",)),
            "level": st.one_of(bad_int(1), st.just(4)),
            "ndim": st.sampled_from([0, 4, 1, "2", None]),
        },
        finite=True,
    ),
    f"{P}.make_scale_dataset": Spec(
        wam.make_scale_dataset,
        {"kind": "shape", "n": 2, "size": 8, "seed": 0},
        {
            "kind": bad_choice(("texture", "shape")),
            "n": bad_int(1),
            "size": bad_int(8),
            "seed": bad_seed(),
        },
        finite=True,
    ),
    f"{P}.digits_32": Spec(wam.digits_32, {"seed": 0}, {"seed": bad_seed()}, finite=True),
    f"{P}.make_click_audio": Spec(
        wam.make_click_audio,
        {"n": 2, "length": 64, "seed": 0},
        {"n": bad_int(1), "length": bad_int(64), "seed": bad_seed()},
        finite=True,
    ),
    f"{P}.make_shape_volumes": Spec(
        wam.make_shape_volumes,
        {"n": 2, "size": 8, "seed": 0},
        {"n": bad_int(1), "size": bad_int(8), "seed": bad_seed()},
        finite=True,
    ),
}

SPECS[f"{P}.model_free_attribution"] = Spec(
    wam.model_free_attribution,
    {"x": X, "kind": "random", "wavelet": "haar", "level": 2, "ndim": 2, "seed": 0},
    {
        "x": BAD_X,
        "kind": bad_choice(wam.BASELINES),
        "wavelet": bad_choice(("haar", "db2")),
        "level": bad_int(1),
        "ndim": st.sampled_from([0, 4, "2", None]),
        "seed": bad_seed(),
    },
    names={"wavelet": "wavelet", "level": "level"},
    finite=True,
)

SPECS[f"{P}.to_pixels"] = Spec(
    wam.to_pixels,
    {"attr": ATTR, "ndim": 2},
    {"attr": BAD_LIST, "ndim": st.sampled_from([0, 4, 1, "2", None])},
    finite=True,
)

REGION = torch.zeros(2, 8, 8, dtype=torch.bool)
REGION[:, :2, :2] = True
SPECS[f"{P}.region_mass_ratio"] = Spec(
    wam.region_mass_ratio,
    {"attr": ATTR, "region": REGION, "ndim": 2, "levels": ["approx", "level 1"]},
    {
        "attr": st.one_of(BAD_LIST, st.just([c * 0 for c in COEFFS])),
        "region": st.sampled_from(
            [REGION.float(), REGION[:, :4], REGION[0], torch.zeros_like(REGION), "abc", None]
        ),
        "ndim": st.sampled_from([0, 4, 1, "2", None]),
        "levels": st.sampled_from([[], ["level 9"], "approx", ("level 3",), 1]),
    },
    finite=True,
)
SPECS[f"{P}.keep_top"] = Spec(
    wam.keep_top,
    {"x": X, "attr": ATTR, "keep": 0.25, "wavelet": "haar", "level": 2, "ndim": 2},
    {
        "x": BAD_X,
        "attr": st.one_of(BAD_LIST, st.just(X)),
        "keep": bad_real(0.0, 1.0, low_open=True),
        "wavelet": bad_choice(("haar",)),
        "level": st.one_of(bad_int(1), st.just(4)),
        "ndim": st.sampled_from([0, 4, 1, "2", None]),
    },
    finite=True,
)

CONSTANTS = {f"{P}.BANDS", f"{P}.METHODS", f"{P}.BASELINES", f"{P}.VARIANTS"}
test_bad_input_is_rejected = bad_input_test(SPECS)
test_valid_input_runs = valid_input_test(SPECS)
