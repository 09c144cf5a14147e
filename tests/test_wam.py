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
    keep_top,
    make_scale_dataset,
    model_free_attribution,
    region_mass_ratio,
    scale_importance,
    scale_maps,
    to_pixels,
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
    # A planted linear model with positive weights on positive inputs: every pixel's contribution
    # x_i w_i is positive, so ranking by it is the ideal ordering and must beat a random ranking
    # (and a random ranking the reversed ideal one), in both domains.
    torch.manual_seed(0)
    w = torch.rand(1, 16, 16) / 40
    model = Linear(w)
    x = torch.rand(4, 1, 16, 16)
    good = wam(model, x, 0, level=2, method="integrated", n_samples=4)  # exact: W ⊙ z
    res = insertion_deletion(model, x, 0, good, steps=8, level=2)
    assert res["insertion"].shape == (9,) and res["deletion"].shape == (9,)
    rnd = insertion_deletion(
        model, x, 0, model_free_attribution(x, "random", level=2, seed=0), steps=8, level=2
    )
    assert res["faithfulness"] > rnd["faithfulness"] + 0.05
    contrib = (x * w).detach()
    faith = {
        name: insertion_deletion(model, x, 0, a, domain="pixel", steps=8)["faithfulness"]
        for name, a in [
            ("ideal", contrib),
            ("random", torch.rand(x.shape, generator=torch.Generator().manual_seed(1))),
            ("reversed", 1.0 / (contrib + 1e-3)),
        ]
    }
    assert faith["ideal"] > faith["random"] + 0.05 > faith["reversed"] + 0.1, faith
    log = insertion_deletion(model, x, 0, good, steps=8, level=2, spacing="log")
    f = log["fractions"]
    assert f[0] == 0.0 and f[-1] == 1.0 and np.all(np.diff(f) > 0) and f[1] == 1 / 256
    assert len(log["insertion"]) == len(f)
    assert log["faithfulness"] > rnd["faithfulness"] + 0.05


def test_official_variant_is_the_normalised_gradient_layout():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Flatten(), nn.Linear(512, 8), nn.Tanh(), nn.Linear(8, 3))
    x = torch.rand(3, 2, 16, 16)
    signed = wam(model, x, 1, level=2)
    official = wam(model, x, 1, level=2, variant="official")
    for s, o in zip(signed, official, strict=True):
        ref = s.mean(dim=1, keepdim=True).abs()
        ref = ref / ref.flatten(1).amax(1).reshape(-1, 1, 1, 1)
        assert torch.allclose(o, ref.expand_as(s), atol=1e-6)
        assert torch.allclose(o.flatten(1).amax(1), torch.ones(3))  # max 1 per image, sub-band


def test_official_integrated_on_a_linear_model():
    # The gradient of a linear model is constant along the path, so the official IG is the
    # normalised |z| layout times the normalised |dwt(w)| layout (the trapezoid weights sum to 1).
    torch.manual_seed(0)
    w = torch.randn(1, 16, 16, dtype=torch.float64)
    x = torch.rand(2, 1, 16, 16, dtype=torch.float64)
    attr = wam(Linear(w), x, 0, level=2, method="integrated", n_samples=5, variant="official")
    grads = dwt(w.expand_as(x).contiguous(), level=2)
    for a, z, g in zip(attr, dwt(x, level=2), grads, strict=True):
        nz = z.abs() / z.abs().flatten(1).amax(1).reshape(-1, 1, 1, 1)
        ng = g.abs() / g.abs().flatten(1).amax(1).reshape(-1, 1, 1, 1)
        assert torch.allclose(a, nz * ng, atol=1e-10)


def test_smoothgrad_seed():
    model = nn.Sequential(nn.Flatten(), nn.Linear(256, 8), nn.Tanh(), nn.Linear(8, 3))
    x = torch.rand(2, 1, 16, 16)
    a0 = wam(model, x, 0, level=2, method="smooth", n_samples=3, seed=0)
    a0b = wam(model, x, 0, level=2, method="smooth", n_samples=3, seed=0)
    a1 = wam(model, x, 0, level=2, method="smooth", n_samples=3, seed=1)
    assert all(torch.equal(a, b) for a, b in zip(a0, a0b, strict=True))
    assert not all(torch.equal(a, b) for a, b in zip(a0, a1, strict=True))
    with pytest.raises(ValueError, match="noise"):
        wam(model, x, 0, level=2, method="smooth", noise=-0.1)


@pytest.mark.parametrize("ndim", [1, 2, 3])
def test_to_pixels_spreads_each_coefficient_over_its_support(ndim):
    x = torch.zeros(SHAPES[ndim])
    level = 2
    attr = [torch.zeros_like(c) for c in dwt(x, level=level, ndim=ndim)]
    attr[-1][(0, 0) + (1,) * ndim] = -2.0  # one level-1 coefficient: a 2^ndim block
    attr[0][(1, 0) + (0,) * ndim] = 1.0  # one approximation coefficient: a 4^ndim block
    pix = to_pixels(attr, ndim=ndim)
    assert pix.shape == x.shape
    block1 = (0, 0) + (slice(2, 4),) * ndim
    assert torch.all(pix[block1] == 2.0) and float(pix[0].sum()) == 2.0 * 2**ndim
    block0 = (1, 0) + (slice(0, 4),) * ndim
    assert torch.all(pix[block0] == 1.0) and float(pix[1].sum()) == 4**ndim


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


def test_region_mass_ratio_known_answers():
    x = torch.zeros(2, 1, 16, 16)
    region = torch.zeros(2, 16, 16, dtype=torch.bool)
    region[:, :4, :4] = True  # the top-left 4x4 block: 1/16 of the image
    attr = [torch.ones_like(c) for c in dwt(x, level=2)]
    assert region_mass_ratio(attr, region) == pytest.approx(1.0)  # uniform mass: ratio 1
    attr[0][:, :, 0, 0] = 1e6  # the approximation coefficient over the block takes the mass
    assert region_mass_ratio(attr, region, levels=["approx"]) == pytest.approx(16.0, rel=1e-4)
    with pytest.raises(ValueError, match="levels"):
        region_mass_ratio(attr, region, levels=["level 7"])
    with pytest.raises(ValueError, match="region"):
        region_mass_ratio(attr, region[:, :8])


def test_keep_top_keeps_the_chosen_coefficients():
    x = torch.rand(2, 1, 64)
    coeffs = dwt(x, level=3, ndim=1)
    assert torch.allclose(keep_top(x, coeffs, 1.0, level=3, ndim=1), x, atol=1e-6)
    # keeping by |z| itself: the rebuilt signal's coefficients are the k largest of x's
    kept = dwt(keep_top(x, [c.abs() for c in coeffs], 0.25, level=3, ndim=1), level=3, ndim=1)
    nonzero = sum(int((c.abs() > 1e-6).sum()) for c in kept)
    assert nonzero == 2 * 16
    with pytest.raises(ValueError, match="keep"):
        keep_top(x, coeffs, 0.0, level=3, ndim=1)
