"""Unit tests of icml25.vlm_merging: suite, identity merges, TIES by hand, DARE seeding, planted
localisation, evaluation floor, alignment shapes."""

import copy

import numpy as np
import pytest
import torch

from icml25.vlm_merging import (
    VOCAB,
    build_model,
    evaluate,
    image_token_alignment,
    layer_ablation,
    layer_index,
    make_suite,
    merge,
    mergeable,
    task_vector,
    train,
)

torch.set_num_threads(1)


@pytest.fixture(scope="module")
def suite():
    return make_suite(seed=0, n_operands=2, n_test=200)


@pytest.fixture(scope="module")
def trio(suite):
    """(base, vlm, reason) state dicts: tiny models nudged apart by a few steps."""
    base = build_model(suite, n_layer=3, n_embd=16, n_head=2, seed=0)
    vlm, reason = copy.deepcopy(base), copy.deepcopy(base)
    train(vlm, suite, "perception", 3, 1e-2, "all", batch_size=8, seed=1)
    train(reason, suite, "text_reasoning", 3, 1e-2, "layers", batch_size=8, seed=2)
    return base, vlm, reason


def test_suite_templates_answers_and_split(suite):
    b = suite.batch("text_reasoning", "train", 50, seed=3)
    for row, ans in zip(b.input_ids.tolist(), b.answer.tolist(), strict=True):
        words = [VOCAB[i] for i in row]
        a, op, c = int(words[1]), words[2], int(words[3])
        assert words[4] == "is" and int(words[5]) == (a + c if op == "plus" else a - c) % 10
        assert row[-1] == ans
    p = suite.batch("perception", "test", 100)
    assert p.images.shape == (100, 1, 1, 8, 8) and int(p.target_mask.sum()) == 100
    m = suite.batch("mm_reasoning", "val", 10)
    assert m.images.shape == (10, 2, 1, 8, 8)
    tr, va, te = (set(suite.split_index[s].tolist()) for s in ("train", "val", "test"))
    assert not (tr & va or tr & te or va & te) and len(tr | va | te) == 1797
    assert torch.equal(
        suite.batch("mm_reasoning", "test", 5).images,
        suite.batch("mm_reasoning", "test", 5, seed=9).images,
    )  # fixed items
    # a test image is in the test split
    test_imgs = torch.as_tensor(suite.images[suite.split_index["test"]])
    assert (test_imgs == p.images[0, 0]).flatten(1).all(1).any()


def test_mergeable_and_layer_index():
    assert mergeable("lm.transformer.h.3.attn.c_attn.weight")
    assert mergeable("lm.transformer.ln_f.bias")
    for k in (
        "lm.transformer.wte.weight",
        "lm.transformer.wpe.weight",
        "lm.lm_head.weight",
        "proj.weight",
        "encoder.net.0.weight",
    ):
        assert not mergeable(k) and layer_index(k) is None
    assert layer_index("lm.transformer.h.11.mlp.c_fc.bias") == 11


def test_identity_merges(trio):
    base, vlm, reason = (m.state_dict() for m in trio)
    one = merge(base, [vlm, reason], "linear", (1.0, 0.0))
    assert all(torch.equal(one[k], vlm[k]) for k in vlm)
    zero = merge(base, [vlm, reason], "linear", (0.0, 1.0))
    for k in vlm:
        assert torch.equal(zero[k], reason[k] if mergeable(k) else vlm[k])
    ta = merge(base, [vlm, reason], "task_arithmetic", (1.0, 1.0))
    tv, tr = task_vector(vlm, base), task_vector(reason, base)
    for k in tv:
        assert torch.allclose(ta[k], base[k] + tv[k] + tr[k], atol=1e-6)
    assert torch.equal(ta["proj.weight"], vlm["proj.weight"])
    ties = merge(base, [reason], "ties", (0.7,), density=1.0)
    for k in tr:
        assert torch.allclose(ties[k], base[k] + 0.7 * tr[k], atol=1e-6)


def test_ties_by_hand_matches_the_brief():
    key = "lm.transformer.h.0.x"
    base = {key: torch.zeros(4)}
    t1 = {key: torch.tensor([3.0, -1.0, 0.5, -4.0])}
    t2 = {key: torch.tensor([-1.0, -2.0, 0.5, 2.0])}
    full = merge(base, [t1, t2], "ties", (1, 1), density=1.0)[key]
    assert torch.allclose(full, torch.tensor([3.0, -1.5, 0.5, -4.0]))
    half = merge(base, [t1, t2], "ties", (1, 1), density=0.5)[key]
    assert torch.allclose(half, torch.tensor([3.0, -2.0, 0.0, -4.0]))


def test_dare_is_seeded_rescaled_and_leaves_global_rng(trio):
    base, vlm, reason = (m.state_dict() for m in trio)
    torch.manual_seed(5)
    before = torch.rand(2)
    torch.manual_seed(5)
    a = merge(base, [vlm, reason], "dare_linear", (1.0, 1.0), density=0.5, seed=3)
    assert torch.equal(torch.rand(2), before)
    b = merge(base, [vlm, reason], "dare_linear", (1.0, 1.0), density=0.5, seed=3)
    c = merge(base, [vlm, reason], "dare_linear", (1.0, 1.0), density=0.5, seed=4)
    k = "lm.transformer.h.0.mlp.c_fc.weight"
    assert torch.equal(a[k], b[k]) and not torch.equal(a[k], c[k])
    # rescaled: a kept entry of a single task vector is tau / density
    single = merge(base, [reason], "dare_linear", (1.0,), density=0.5, seed=3)
    tau = reason[k] - base[k]
    kept = (single[k] - base[k]) != 0
    assert kept.any()
    assert torch.allclose((single[k] - base[k])[kept], 2 * tau[kept], atol=1e-6)


def test_layerswap_keeps_early_blocks(trio):
    base, vlm, reason = (m.state_dict() for m in trio)
    out = merge(base, [vlm, reason], "layerswap", (0.5, 0.5), swap_below=2)
    lin = merge(base, [vlm, reason], "linear", (0.5, 0.5))
    for k in vlm:
        i = layer_index(k)
        want = vlm[k] if (i is not None and i < 2) or not mergeable(k) else lin[k]
        assert torch.equal(out[k], want)


def test_planted_localisation(suite):
    base = build_model(suite, n_layer=3, n_embd=16, n_head=2, seed=0)
    model = copy.deepcopy(base)
    layer1 = [p for k, p in model.named_parameters() if k.startswith("lm.transformer.h.1.")]
    opt = torch.optim.AdamW(layer1, lr=5e-2)
    for step in range(40):
        b = suite.batch("perception", "train", 64, seed=step)
        loss = -model.sequence_logprob(b.input_ids, b.images, b.target_mask).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    model.eval()
    df = layer_ablation(model, base.state_dict(), suite, ("perception",))
    assert list(df["layer"]) == [0, 1, 2]
    deltas = df.set_index("layer")["delta"]
    assert deltas[0] == 0.0 and deltas[2] == 0.0
    assert deltas[1] < -0.1


def test_untrained_model_is_near_chance_and_alignment_shape(suite):
    model = build_model(suite, n_layer=2, n_embd=16, n_head=2, seed=0)
    acc = evaluate(model, suite, ["perception", "mm_reasoning"])
    assert all(0.0 <= v <= 0.3 for v in acc.values())
    for layer in (None, 0, 1):
        a = image_token_alignment(model, suite, layer)
        assert a.shape == (10, 10) and np.all(np.abs(a) <= 1 + 1e-6)
    for position in ("last", "is"):
        a = image_token_alignment(model, suite, 1, position)
        assert a.shape == (10, 10) and np.all(np.abs(a) <= 1 + 1e-6)
    with pytest.raises(ValueError, match="position"):
        image_token_alignment(model, suite, None, "is")


def test_alignment_positions_read_the_named_tokens(suite):
    # Recompute the "last" and "is" matrices from hidden_states at the token positions by hand:
    # [bos] the digit <img>x4 is -> last image token at 2 + n, "is" at 3 + n; "the digit j is"
    # -> the digit token at 3, "is" at 4.
    from icml25.vlm_merging import IMG, N_IMAGE_TOKENS, digit_token

    model = build_model(suite, n_layer=2, n_embd=16, n_head=2, seed=0).eval()
    n, w = N_IMAGE_TOKENS, {t: VOCAB.index(t) for t in ("the", "digit", "is")}
    idx = suite.split_index["test"]
    images = torch.as_tensor(suite.images[idx])[:, None]
    ids = torch.tensor([0, w["the"], w["digit"], *[IMG] * n, w["is"]]).repeat(len(idx), 1)
    txt = torch.tensor([[0, w["the"], w["digit"], int(digit_token(d)), w["is"]] for d in range(10)])
    with torch.no_grad():
        h = model.hidden_states(ids, images)[2]
        ht = model.hidden_states(txt)[2]
    labels = suite.labels[idx]
    for position, img, tok in (("last", h[:, 2 + n], ht[:, 3]), ("is", h[:, 3 + n], ht[:, 4])):
        means = torch.stack([img[torch.as_tensor(labels == d)].mean(0) for d in range(10)])
        want = torch.nn.functional.cosine_similarity(means[:, None], tok[None], dim=-1)
        got = image_token_alignment(model, suite, 1, position)
        np.testing.assert_allclose(got, want.numpy(), atol=1e-5)
    assert not np.allclose(
        image_token_alignment(model, suite, 1, "mean"), image_token_alignment(model, suite, 1, "is")
    )


def test_bad_merges_raise(trio):
    base, vlm, reason = (m.state_dict() for m in trio)
    with pytest.raises(ValueError, match="sum to 1"):
        merge(base, [vlm, reason], "linear", (0.9, 0.2))
    with pytest.raises(ValueError, match="weights"):
        merge(base, [vlm, reason], "linear", (1.0,))
    with pytest.raises(ValueError, match="density"):
        merge(base, [vlm, reason], "ties", (1, 1), density=0.0)
    with pytest.raises(ValueError, match="swap_below"):
        merge(base, [vlm, reason], "layerswap", (0.5, 0.5), swap_below=4)
    with pytest.raises(ValueError, match="method"):
        merge(base, [vlm, reason], "slerp")
    bad = dict(reason)
    bad["lm.transformer.h.0.ln_1.weight"] = torch.zeros(3)
    with pytest.raises(ValueError, match="shape"):
        merge(base, [vlm, bad], "linear", (0.5, 0.5))


def test_probes_relayout_the_fixed_items(suite):
    from icml25.vlm_merging import N_IMAGE_TOKENS, probe_batch

    text = suite.batch("text_reasoning", "test", suite.n_test)
    oracle = probe_batch(suite, "oracle_mm")
    mm = suite.batch("mm_reasoning", "test", 1)
    assert oracle.input_ids.shape[1] == mm.input_ids.shape[1] == 2 + 5 * suite.n_operands
    assert torch.equal(oracle.answer, text.answer)
    n = N_IMAGE_TOKENS
    row, src = oracle.input_ids[0].tolist(), text.input_ids[0].tolist()
    assert row == [src[0], *[src[1]] * n, src[2], *[src[3]] * n, *src[-2:]]
    assert torch.equal(probe_batch(suite, "oracle_text").input_ids, text.input_ids)
    perc = suite.batch("perception", "test", suite.n_test)
    bare = probe_batch(suite, "perception_bare")
    assert [VOCAB[i] for i in bare.input_ids[0, :-1].tolist()] == ["<bos>", *["<img>"] * n, "is"]
    assert torch.equal(bare.images, perc.images) and torch.equal(bare.answer, perc.answer)


def test_skyline_trains_a_copy(suite, trio):
    from icml25.vlm_merging import probe_accuracy, skyline

    model = build_model(suite, n_layer=3, n_embd=16, n_head=2, seed=0)
    before = {k: v.clone() for k, v in model.state_dict().items()}
    acc, losses = skyline(model, suite, steps=2, lr=1e-2, params="layers", seed=0)
    assert 0.0 <= acc <= 1.0 and len(losses) == 2
    assert all(torch.equal(before[k], v) for k, v in model.state_dict().items())
    assert 0.0 <= probe_accuracy(model, suite, "oracle_mm") <= 1.0
    with pytest.raises(ValueError, match="n_operands"):
        probe_accuracy(model, make_suite(seed=0, n_operands=4, n_test=5), "oracle_mm")


def test_alignment_tasks_templates_and_answers(suite):
    from icml25.vlm_merging import ALIGN_TASKS, IMG, N_IMAGE_TOKENS, TASKS

    assert set(ALIGN_TASKS).isdisjoint(TASKS)
    n = N_IMAGE_TOKENS
    b = suite.batch("image_is", "train", 20, seed=1)
    assert b.input_ids.shape == (20, n + 3) and b.images.shape == (20, 1, 1, 8, 8)
    assert [VOCAB[i] for i in b.input_ids[0, :-1].tolist()] == ["<bos>", *["<img>"] * n, "is"]
    idx = suite.split_index["train"]
    for img, ans in zip(b.images[:, 0, 0], b.answer.tolist(), strict=True):
        j = idx[[np.array_equal(suite.images[i, 0], img.numpy()) for i in idx]][0]
        assert suite.labels[j] + 2 == ans
    m = suite.batch("mm_single", "train", 200, seed=2)
    assert m.input_ids.shape == (200, n + 5) and m.images.shape == (200, 1, 1, 8, 8)
    firsts = 0
    for row, img, ans in zip(
        m.input_ids.tolist(), m.images[:, 0, 0], m.answer.tolist(), strict=True
    ):
        j = idx[[np.array_equal(suite.images[i, 0], img.numpy()) for i in idx]][0]
        d = int(suite.labels[j])
        first = row[1] == IMG
        firsts += first
        other = int(VOCAB[row[-3] if first else row[1]])
        op = VOCAB[row[n + 1] if first else row[2]]
        a, c = (d, other) if first else (other, d)
        assert (
            VOCAB[row[-2]] == "is" and ans == row[-1] == (a + c if op == "plus" else a - c) % 10 + 2
        )
    assert 60 < firsts < 140  # both orders
    assert evaluate(
        build_model(suite, n_layer=1, n_embd=8, n_head=2), suite, ["image_is"]
    ).keys() == {"image_is"}
    assert set(evaluate(build_model(suite, n_layer=1, n_embd=8, n_head=2), suite)) == set(TASKS)


def test_models_and_batches_follow_the_device(suite):
    from icml25.vlm_merging import train_models  # noqa: F401  (the device argument exists)

    model = build_model(suite, n_layer=1, n_embd=8, n_head=2, seed=0, device="cpu")
    assert model.device == torch.device("cpu")
    losses = train(model, suite, {"perception": 1.0, "image_is": 1.0}, 2, 1e-3, "all", 8)
    assert len(losses) == 2 and all(np.isfinite(losses))
    assert 0.0 <= evaluate(model, suite, ["perception"])["perception"] <= 1.0
    ta = merge(model, [model, model], "ties", (1.0, 1.0), density=0.5)
    assert all(v.device == torch.device("cpu") for v in ta.values())
    with pytest.raises(ValueError, match="device"):
        build_model(suite, n_layer=1, n_embd=8, n_head=2, device="nope")
    if torch.cuda.is_available():  # pragma: no cover - only where a GPU is lent
        gpu = build_model(suite, n_layer=1, n_embd=8, n_head=2, device="cuda")
        train(gpu, suite, "perception", 1, 1e-3, "all", 8)
        assert 0.0 <= evaluate(gpu, suite, ["perception"])["perception"] <= 1.0


def test_merge_rejects_non_finite_and_mixed_dtypes(trio):
    base, vlm, reason = (m.state_dict() for m in trio)
    bad = dict(reason)
    bad["lm.transformer.h.0.ln_1.weight"] = torch.full_like(
        bad["lm.transformer.h.0.ln_1.weight"], float("nan")
    )
    with pytest.raises(ValueError, match="non-finite"):
        merge(base, [vlm, bad], "linear", (0.5, 0.5))
    inf = dict(base)
    inf["lm.transformer.h.0.ln_1.bias"] = inf["lm.transformer.h.0.ln_1.bias"] + float("inf")
    with pytest.raises(ValueError, match="non-finite"):
        merge(inf, [vlm, reason], "task_arithmetic", (1.0, 1.0))
    mixed = dict(reason)
    mixed["lm.transformer.h.0.ln_1.weight"] = mixed["lm.transformer.h.0.ln_1.weight"].double()
    with pytest.raises(ValueError, match="dtype"):
        merge(base, [vlm, mixed], "linear", (0.5, 0.5))


def test_merge_accepts_a_1d_array_of_weights(trio):
    base, vlm, reason = (m.state_dict() for m in trio)
    a = merge(base, [vlm, reason], "linear", np.array([0.7, 0.3]))
    b = merge(base, [vlm, reason], "linear", (0.7, 0.3))
    assert all(torch.equal(a[k], b[k]) for k in a)
