"""Unit tests of icml25.stamp.llm: transformers' KGW watermark driven through a chat model
(a tiny random Llama here; SmolLM2 runs in the notebook 4_real_llm)."""

import numpy as np
import pytest

from icml25.stamp.llm import (
    llm_rephrase,
    llm_versions,
    llm_zscores,
    meaning_scores,
    watermarking_config,
)

ITEMS = ["w3 w4 w5", "w10 w11 w12 w13", "w40 w41"]


def test_config_is_kgw_lefthash_with_the_key():
    cfg = watermarking_config(7, delta=1.5, gamma=0.3)
    assert cfg.hashing_key == 7 and cfg.bias == 1.5 and cfg.greenlist_ratio == 0.3
    assert cfg.seeding_scheme == "lefthash" and cfg.context_width == 1


@pytest.mark.parametrize(
    ("kwargs", "err", "name"),
    [
        ({"key": 1, "gamma": 0.0}, ValueError, "gamma"),
        ({"key": 1, "gamma": 1.0}, ValueError, "gamma"),
        ({"key": 1, "delta": -1.0}, ValueError, "delta"),
        ({"key": 0}, ValueError, "key"),
        ({"key": 1.5}, TypeError, "key"),
        ({"key": True}, TypeError, "key"),
    ],
)
def test_config_rejects_bad_arguments(kwargs, err, name):
    with pytest.raises(err, match=name):
        watermarking_config(**kwargs)


def test_strong_watermark_is_detected_with_its_key_only(tiny_chat_lm):
    model, tok = tiny_chat_lm
    out = llm_rephrase(model, tok, ITEMS * 4, key=11, delta=8.0, max_new_tokens=40, seed=0)
    assert len(out) == 12 and all(isinstance(t, str) and t for t in out)
    right = llm_zscores(model.config, tok, out, key=11)
    wrong = llm_zscores(model.config, tok, out, key=12)
    assert right.shape == (12,) and np.nanmean(right) > 6
    assert abs(np.nanmean(wrong)) < 1.5
    plain = llm_rephrase(model, tok, ITEMS * 4, key=11, delta=0.0, max_new_tokens=40, seed=0)
    assert abs(np.nanmean(llm_zscores(model.config, tok, plain, key=11))) < 1.5


def test_rephrasing_is_seeded_and_leaves_the_tokenizer_as_it_was(tiny_chat_lm):
    model, tok = tiny_chat_lm
    side = tok.padding_side
    a = llm_rephrase(model, tok, ITEMS, key=3, max_new_tokens=12, seed=4)
    b = llm_rephrase(model, tok, ITEMS, key=3, max_new_tokens=12, seed=4, batch_size=1)
    c = llm_rephrase(model, tok, ITEMS, key=3, max_new_tokens=12, seed=5)
    assert a == llm_rephrase(model, tok, ITEMS, key=3, max_new_tokens=12, seed=4)
    assert len(b) == 3 and a != c
    assert tok.padding_side == side


def test_versions_table_has_one_column_per_key(tiny_chat_lm):
    model, tok = tiny_chat_lm
    table = llm_versions(model, tok, ITEMS, keys=[5, 6, 7], max_new_tokens=10, progress=False)
    assert table.shape == (3, 3)
    assert table[0, 0] != table[0, 1]
    with pytest.raises(ValueError, match="keys"):
        llm_versions(model, tok, ITEMS, keys=[5, 5], progress=False)
    with pytest.raises(ValueError, match="keys"):
        llm_versions(model, tok, ITEMS, keys=[5], progress=False)


def test_bad_inputs_raise(tiny_chat_lm):
    model, tok = tiny_chat_lm
    with pytest.raises(TypeError, match="texts"):
        llm_rephrase(model, tok, "w1 w2", key=1)
    with pytest.raises(ValueError, match="texts"):
        llm_zscores(model.config, tok, [""], key=1)
    with pytest.raises(ValueError, match="temperature"):
        llm_rephrase(model, tok, ITEMS, key=1, temperature=0)
    z = llm_zscores(model.config, tok, ["w1", "w1 w2 w3"], key=1)
    assert np.isnan(z[0]) and np.isfinite(z[1])


class BagOfWords:
    """A stand-in sentence encoder: normalised word counts over the words it has seen."""

    def __init__(self, words):
        self.index = {w: i for i, w in enumerate(sorted(set(words)))}

    def encode(self, texts, normalize_embeddings=True):
        out = np.zeros((len(texts), len(self.index)))
        for row, text in zip(out, texts, strict=True):
            for w in text.split():
                row[self.index[w]] += 1
        return out / np.linalg.norm(out, axis=1, keepdims=True)


def test_meaning_scores_against_a_direct_computation():
    originals = ["a b c", "d e f", "a e g"]
    versions = np.array([["a b c", "c b x"], ["d e", "f y"], ["g e a", "z"]], dtype=object)
    enc = BagOfWords("a b c d e f g x y z".split())
    own, other = meaning_scores(enc, originals, versions)
    assert own.shape == other.shape == (3, 2)
    np.testing.assert_allclose(own[:, 0], [1.0, np.sqrt(2 / 3), 1.0])
    cos = lambda u, v: float(enc.encode([u])[0] @ enc.encode([v])[0])  # noqa: E731
    for i in range(3):
        for j in range(2):
            assert own[i, j] == pytest.approx(cos(originals[i], versions[i, j]))
            expect = np.mean([cos(originals[k], versions[i, j]) for k in range(3) if k != i])
            assert other[i, j] == pytest.approx(expect)


def test_meaning_scores_reject_bad_shapes():
    enc = BagOfWords(["a", "b"])
    with pytest.raises(ValueError, match="versions"):
        meaning_scores(enc, ["a", "b"], np.array(["a", "b"], dtype=object))
    with pytest.raises(ValueError, match="versions"):
        meaning_scores(enc, ["a", "b"], np.array([["a"], ["b"], ["a"]], dtype=object))
    with pytest.raises(ValueError, match="2 originals"):
        meaning_scores(enc, ["a"], np.array([["a"]], dtype=object))
