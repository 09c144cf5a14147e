"""Unit tests of icml25.wam: reconstruction, the linear-model identity, IG completeness, errors."""

import numpy as np
import pytest
import torch
import torch.nn as nn

from icml25.wam import (
    dwt,
    dyadic_layout,
    idwt,
    insertion_deletion,
    make_scale_dataset,
    model_free_attribution,
    scale_importance,
    scale_maps,
    wam,
)

SHAPES = {1: (2, 1, 64), 2: (2, 1, 32, 32), 3: (2, 1, 16, 16, 16)}


@pytest.mark.parametrize("ndim", [1, 2, 3])
def test_perfect_reconstruction(ndim):
    x = torch.randn(SHAPES[ndim], dtype=torch.float64)
    coeffs = dwt(x, "haar", level=3 if ndim < 3 else 2, ndim=ndim)
    assert torch.allclose(idwt(coeffs, "haar", ndim), x, atol=1e-10)


class Linear(nn.Module):
    def __init__(self, w):
        super().__init__()
        self.w = w

    def forward(self, x):
        s = (x * self.w).flatten(1).sum(1)
        return torch.stack([s, -s], dim=1)


@pytest.mark.parametrize("ndim", [1, 2, 3])
def test_wam_of_a_linear_model_is_the_dwt_of_its_weights(ndim):
    torch.manual_seed(0)
    w = torch.randn(SHAPES[ndim][1:], dtype=torch.float64)
    x = torch.randn(SHAPES[ndim], dtype=torch.float64)
    level = 2
    attr = wam(Linear(w), x, 0, level=level, ndim=ndim)
    ref = dwt(w.expand_as(x).contiguous(), level=level, ndim=ndim)
    for a, r in zip(attr, ref, strict=True):
        assert torch.allclose(a, r, atol=1e-10)


def test_integrated_wam_is_complete():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Flatten(), nn.Linear(256, 16), nn.Tanh(), nn.Linear(16, 3)).double()
    x = torch.randn(1, 1, 16, 16, dtype=torch.float64)
    attr = wam(model, x, 1, level=2, method="integrated", n_samples=64)
    total = sum(float(a.sum()) for a in attr)
    with torch.no_grad():
        gap = float(model(x)[0, 1] - model(torch.zeros_like(x))[0, 1])
    assert abs(total - gap) <= 0.02 * abs(gap)


def test_scale_importance_sums_to_one_and_finds_the_planted_scale():
    x = torch.zeros(1, 1, 32, 32)
    coeffs = dwt(x, level=3)
    coeffs[-1] = torch.ones_like(coeffs[-1])  # only the finest diagonal details
    share = scale_importance(coeffs)
    assert set(share) == {"approx", "level 3", "level 2", "level 1"}
    assert share["level 1"] == pytest.approx(1.0)
    assert sum(share.values()) == pytest.approx(1.0)
    maps = scale_maps(coeffs)
    assert maps["level 1"].shape == (32, 32) and maps["level 1"].min() == 1.0
    assert maps["approx"].max() == 0.0
    layout = dyadic_layout(coeffs)
    assert layout.shape == (32, 32) and layout[16:, 16:].min() == 1.0


def test_insertion_deletion_shapes_and_ordering():
    torch.manual_seed(0)
    w = torch.randn(1, 16, 16)
    model = Linear(w)
    x = torch.rand(4, 1, 16, 16)
    good = wam(model, x, 0, level=2)
    res = insertion_deletion(model, x, 0, good, steps=8, level=2)
    assert res["insertion"].shape == (9,) and res["deletion"].shape == (9,)
    pix = insertion_deletion(model, x, 0, (x * w).detach(), domain="pixel", steps=8, level=2)
    assert np.isfinite(pix["faithfulness"])


def test_scale_datasets():
    X, y = make_scale_dataset("texture", n=20, size=32, seed=0)
    assert X.shape == (20, 1, 32, 32) and X.dtype == np.float32 and set(y) <= {0, 1}
    X2, _ = make_scale_dataset("texture", n=20, size=32, seed=0)
    assert np.array_equal(X, X2)


M = Linear(torch.ones(1, 32, 32))
X = torch.rand(2, 1, 32, 32)


@pytest.mark.parametrize(
    ("call", "arg"),
    [
        (lambda: dwt(torch.rand(1, 1, 30, 30), level=3), "divisible"),
        (lambda: dwt(X, wavelet="nope"), "wavelet"),
        (lambda: dwt(X, ndim=4), "ndim"),
        (lambda: wam(M, X, 0, method="lime"), "method"),
        (lambda: wam(M, X, 5), "target"),
        (lambda: insertion_deletion(M, X, 0, [X], domain="fourier"), "domain"),
        (lambda: make_scale_dataset("colour"), "kind"),
    ],
)
def test_bad_input(call, arg):
    with pytest.raises(ValueError, match=arg):
        call()


def test_model_free_attributions():
    x = torch.rand(4, 1, 32, 32)
    mag = model_free_attribution(x, "magnitude")
    assert all(torch.equal(m, c.abs()) for m, c in zip(mag, dwt(x), strict=True))
    rnd = model_free_attribution(x, "random", seed=1)
    assert all(r.shape == c.shape for r, c in zip(rnd, dwt(x), strict=True))
    assert torch.equal(rnd[0], model_free_attribution(x, "random", seed=1)[0])
    # a random ranking's level shares are the levels' shares of the coefficients
    share = scale_importance(rnd)
    assert abs(share["level 1"] - 0.75) < 0.02 and abs(share["approx"] - 1 / 64) < 0.01
