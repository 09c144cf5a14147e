"""Unit tests of icml25.common.vlm.TinyVLM: keys, encoders, placeholders, log-probs, generation."""

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from icml25.common.vlm import TinyVLM

torch.set_num_threads(1)
IMG = 5


def _cnn(**kw):
    return TinyVLM(16, IMG, image_shape=(3, 16, 16), n_embd=16, n_head=2, n_positions=24, **kw)


def _patches(**kw):
    return TinyVLM(16, IMG, image_shape=(1, 8, 8), encoder="patches", n_embd=16, n_head=2, **kw)


def test_state_dict_keys():
    m = _cnn(n_layer=3)
    keys = list(m.state_dict())
    assert any(k.startswith("encoder.") for k in keys)
    assert {"proj.weight", "proj.bias", "lm.lm_head.weight"} <= set(keys)
    for part in ("wte", "wpe", "h.0", "h.2", "ln_f"):
        assert any(k.startswith(f"lm.transformer.{part}.") for k in keys), part
    assert not any(k.startswith("lm.transformer.h.3.") for k in keys)
    p = _patches()
    assert not any(k.startswith("encoder.") for k in p.state_dict())  # parameter-free
    assert p.feature_dim == 16 and tuple(p.proj.weight.shape) == (16, 16)


def test_patches_are_the_four_quadrants():
    p = _patches()
    x = torch.arange(64.0).reshape(1, 1, 1, 8, 8)
    feats = p.encoder(x[0])  # (1, 4, 16)
    img = x[0, 0, 0]
    quads = [img[:4, :4], img[:4, 4:], img[4:, :4], img[4:, 4:]]
    for j, q in enumerate(quads):
        assert torch.equal(feats[0, j], q.reshape(-1))
    toks = p.image_features(x)
    assert toks.shape == (1, 1, 4, 16)
    assert torch.allclose(toks[0, 0], p.proj(feats[0]))


def test_seeded_and_leaves_global_rng_alone():
    torch.manual_seed(123)
    before = torch.rand(3)
    torch.manual_seed(123)
    a, b, c = _cnn(seed=1), _cnn(seed=1), _cnn(seed=2)
    after = torch.rand(3)
    assert torch.equal(before, after)
    sa, sb, sc = a.state_dict(), b.state_dict(), c.state_dict()
    assert all(torch.equal(sa[k], sb[k]) for k in sa)
    assert not torch.equal(sa["proj.weight"], sc["proj.weight"])


def test_placeholders_take_the_image_tokens_in_order():
    m = _patches()
    ids = torch.tensor([[0, 1, IMG, IMG, IMG, IMG, 2, IMG, IMG, IMG, IMG, 3]])
    images = torch.rand(1, 2, 1, 8, 8)
    emb = m.embed(ids, images)
    toks = m.image_features(images)[0]  # (2, 4, d)
    pos = (ids[0] == IMG).nonzero().squeeze(1)
    assert torch.allclose(emb[0, pos[:4]], toks[0]) and torch.allclose(emb[0, pos[4:]], toks[1])
    assert torch.allclose(emb[0, 0], m.lm.transformer.wte.weight[0])
    # the image only changes logits from its first placeholder on (causal)
    other = images.clone()
    other[0, 1] = torch.rand(1, 8, 8)
    la, lb = m(ids, images), m(ids, other)
    assert torch.allclose(la[0, :7], lb[0, :7], atol=1e-6)
    assert not torch.allclose(la[0, 7:], lb[0, 7:])


def test_rows_may_use_fewer_images_and_padding_is_ignored():
    m = _patches()
    one = torch.tensor([[0, IMG, IMG, IMG, IMG, 3]])
    two = torch.tensor([[0, IMG, IMG, IMG, IMG, 3], [0, 1, 2, 3, 4, 6]])
    images = torch.rand(2, 1, 1, 8, 8)
    assert torch.allclose(m(one, images[:1])[0], m(two, images)[0], atol=1e-6)
    # right padding does not change earlier logits
    padded = torch.cat([one, torch.zeros(1, 3, dtype=torch.long)], dim=1)
    assert torch.allclose(m(one, images[:1])[0], m(padded, images[:1])[0, :6], atol=1e-6)
    # without placeholders, images change nothing
    txt = torch.tensor([[0, 1, 2, 3]])
    assert torch.allclose(m(txt), m(txt, torch.rand(1, 1, 1, 8, 8)))


def test_sequence_logprob_matches_log_softmax_and_has_gradients():
    m = _cnn()
    ids = torch.tensor([[0, IMG, IMG, IMG, IMG, 3, 4], [0, 1, 2, 3, 4, 6, 7]])
    images = torch.rand(2, 1, 3, 16, 16)
    mask = torch.zeros(2, 7, dtype=torch.bool)
    mask[0, 5:] = True
    mask[1, 6] = True
    lp = m.sequence_logprob(ids, images, mask)
    logp = F.log_softmax(m(ids, images), dim=-1)
    want0 = logp[0, 4, 3] + logp[0, 5, 4]
    want1 = logp[1, 5, 7]
    assert lp.shape == (2,)
    assert torch.allclose(lp, torch.stack([want0, want1]), atol=1e-5)
    (-lp.mean()).backward()
    assert m.proj.weight.grad is not None and m.encoder.net[0].weight.grad.abs().sum() > 0


def test_generate_is_greedy_ragged_and_stops_at_eos():
    m = _cnn()
    ids = torch.tensor([[0, IMG, IMG, IMG, IMG, 3, 4], [0, 1, 2, 0, 0, 0, 0]])
    images = torch.rand(2, 1, 3, 16, 16)
    out = m.generate(ids, images, max_new_tokens=5, prompt_lengths=[7, 3])
    assert out.shape == (2, 5) and out.dtype == torch.long
    alone = m.generate(ids[1:, :3], None, max_new_tokens=5)
    assert torch.equal(out[1], alone[0])
    # step by step by hand: argmax of the forward logits
    seq = ids[:1]
    for t in range(5):
        logits = m(seq, images[:1])[0, -1]
        logits[IMG] = -torch.inf
        nxt = logits.argmax()
        assert int(nxt) == int(out[0, t])
        seq = torch.cat([seq, nxt.view(1, 1)], dim=1)
    assert not bool((out == IMG).any())
    first = int(out[0, 0])
    stopped = m.generate(ids[:1], images[:1], max_new_tokens=4, eos_token_id=first)
    assert torch.equal(stopped, torch.full((1, 4), first))
    assert m.training  # mode restored


def test_training_learns_to_name_an_image_class():
    torch.manual_seed(0)
    m = TinyVLM(
        8, IMG, image_shape=(1, 8, 8), encoder="patches", n_layer=1, n_embd=16, n_head=2, seed=0
    )
    g = torch.Generator().manual_seed(0)
    opt = torch.optim.AdamW(m.parameters(), lr=1e-2)

    def batch(n):
        y = torch.randint(0, 2, (n,), generator=g)
        x = torch.rand(n, 1, 1, 8, 8, generator=g) * 0.5
        x[y == 1, :, :, :4] += 1.0  # class 1: bright top half
        ids = torch.tensor([[0, IMG, IMG, IMG, IMG, 1]]).repeat(n, 1)
        ids[:, 5] = 2 + y
        return ids, x

    mask = torch.zeros(64, 6, dtype=torch.bool)
    mask[:, 5] = True
    for _ in range(60):
        ids, x = batch(64)
        loss = -m.sequence_logprob(ids, x, mask).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    ids, x = batch(200)
    pred = m.generate(ids[:, :5], x, max_new_tokens=1)[:, 0]
    assert (pred == ids[:, 5]).float().mean() > 0.9


def test_numpy_inputs_are_accepted():
    m = _patches()
    ids = np.array([[0, IMG, IMG, IMG, IMG, 3]])
    images = np.random.default_rng(0).random((1, 1, 1, 8, 8))
    assert m(ids, images).shape == (1, 6, 16)


def test_bad_inputs_raise():
    m = _patches()
    ids = torch.tensor([[0, IMG, IMG, IMG, IMG, 3]])
    images = torch.rand(1, 1, 1, 8, 8)
    with pytest.raises(ValueError, match="images is None"):
        m(ids)
    with pytest.raises(ValueError, match="placeholders"):
        m(torch.tensor([[0, IMG, IMG, 3]]), images)
    with pytest.raises(ValueError, match="images"):
        m(ids, torch.rand(1, 1, 1, 8, 7))
    with pytest.raises(ValueError, match="rows"):
        m(ids, torch.rand(2, 1, 1, 8, 8))
    with pytest.raises(ValueError, match="input_ids"):
        m(torch.tensor([[0, 16]]))
    with pytest.raises(ValueError, match="n_positions"):
        m(torch.zeros(1, 65, dtype=torch.long))
    with pytest.raises(ValueError, match="target_mask"):
        m.sequence_logprob(ids, images, torch.ones(1, 6, dtype=torch.bool))
    with pytest.raises(ValueError, match="image_shape"):
        TinyVLM(16, IMG, image_shape=(1, 7, 8), encoder="patches")
    with pytest.raises(ValueError, match="encoder"):
        TinyVLM(16, IMG, encoder="mlp")
    with pytest.raises(ValueError, match="image_token_id"):
        TinyVLM(16, 0)
