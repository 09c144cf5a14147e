"""Unit tests of icml25.concept_erasure: identity masks, gradients through the sampler, errors."""

import numpy as np
import pytest
import torch

from icml25.concept_erasure import (
    HardConcreteGate,
    VelocityMLP,
    digits_data,
    erase_concept,
    erasure_report,
    euler_sample,
    fit_judge,
    random_masks,
    train_flow_matching,
)


def tiny(dtype=torch.float32, hidden=8):
    torch.manual_seed(0)
    model = VelocityMLP(hidden).to(dtype)
    for p in model.parameters():
        p.requires_grad_(False)
    return model


def test_all_ones_masks_reproduce_the_sampler_exactly():
    model = tiny()
    z = torch.randn(5, 64)
    ones = [torch.ones(8), torch.ones(8)]
    assert torch.equal(euler_sample(model, z, 3, 4), euler_sample(model, z, 3, 4, ones))


def test_gradcheck_through_the_sampler_wrt_gate_logits():
    model = tiny(torch.float64)
    z = torch.randn(3, 64, dtype=torch.float64)
    logits = torch.randn(16, dtype=torch.float64, requires_grad=True)

    def f(lg):
        m = torch.sigmoid(lg)
        return euler_sample(model, z, 2, 3, [m[:8], m[8:]]).pow(2).sum()

    assert torch.autograd.gradcheck(f, (logits,))


@pytest.mark.parametrize("finetune", [False, True])
def test_stepwise_recomputation_equals_plain_autograd(finetune):
    model = tiny(torch.float64)
    if finetune:
        for p in model.parameters():
            p.requires_grad_(True)
    z = torch.randn(4, 64, dtype=torch.float64)
    logits = torch.randn(16, dtype=torch.float64, requires_grad=True)
    grads = []
    for checkpoint in (False, True):
        m = torch.sigmoid(logits)
        out = euler_sample(model, z, 5, 4, [m[:8], m[8:]], checkpoint=checkpoint)
        wrt = [logits] + ([p for p in model.parameters()] if finetune else [])
        grads.append(torch.autograd.grad(out.pow(2).sum(), wrt))
    for a, b in zip(*grads, strict=True):
        assert torch.allclose(a, b, atol=1e-6, rtol=0)


def test_hard_concrete_gate():
    gate = HardConcreteGate(100, init=3.0)
    s = gate.sample(torch.Generator().manual_seed(0))
    s = s.detach()
    assert s.shape == (100,) and float(s.min()) >= 0 and float(s.max()) <= 1
    assert torch.equal(gate.binary(), torch.ones(100))
    assert 0.9 < float(gate.l0_penalty().detach()) <= 1
    assert torch.all(gate.deterministic() == 1)


def test_random_masks_keep_the_count():
    masks = [torch.tensor([1.0, 0, 1, 0, 1]), torch.tensor([0.0, 1, 1, 1, 1])]
    rnd = random_masks(masks, seed=3)
    assert [int((r == 0).sum()) for r in rnd] == [2, 1]


def test_base_model_and_a_short_erasure():
    """A small base model samples every class; 150 gate steps lower the target's rate."""
    X, y = digits_data()
    model = train_flow_matching(X, y, hidden=128, steps=600, seed=0)
    judge = fit_judge(X, y)
    before = erasure_report(model, None, judge, target=3, n_per_class=60)
    assert before["rates"].min() >= 0.8, before["rates"]
    res = erase_concept(model, 3, method="mask", iters=150, beta_preserve=1.0, seed=0)
    after = erasure_report(res.model, res.masks, judge, target=3, n_per_class=60)
    assert after["target_rate"] < before["target_rate"] - 0.2
    assert 0 < after["sparsity"] < 0.2


MODEL = tiny()
Z = torch.randn(2, 64)


@pytest.mark.parametrize(
    ("call", "arg"),
    [
        (lambda: euler_sample(MODEL, torch.randn(2, 10), 1, 3), "z"),
        (lambda: euler_sample(MODEL, Z, 1, 0), "n_steps"),
        (lambda: euler_sample(MODEL, Z, 11, 3), "c"),
        (lambda: euler_sample(MODEL, Z, torch.tensor([1, 2, 3]), 3), "c"),
        (lambda: euler_sample(MODEL, Z, 1, 3, [torch.ones(8)]), "masks"),
        (lambda: erase_concept(MODEL, 10), "target"),
        (lambda: erase_concept(MODEL, -1), "target"),
        (lambda: erase_concept(MODEL, 3, method="esd"), "method"),
        (lambda: erase_concept(MODEL, 3, n_steps=0), "n_steps"),
        (lambda: erase_concept(MODEL, 3, anchor=3), "anchor"),
        (lambda: train_flow_matching(np.zeros((5, 3)), np.zeros(5, int)), "X"),
    ],
)
def test_bad_input_raises_value_error_naming_the_argument(call, arg):
    with pytest.raises(ValueError, match=arg):
        call()
