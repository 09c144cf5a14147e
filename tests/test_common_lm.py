"""Unit tests of icml25.common.lm: tokenizer, config-built GPT-2, training, perplexity."""

import numpy as np
import pytest
import torch

from icml25.common.lm import (
    BOS,
    CharTokenizer,
    build_causal_lm,
    sequence_perplexity,
    train_lm,
)


def test_char_tokenizer_round_trip():
    tok = CharTokenizer("abc ")
    ids = tok.encode("cab a")
    assert ids == [3, 1, 2, 4, 1] and BOS not in ids
    assert tok.decode([BOS, *ids]) == "cab a"
    assert tok.vocab_size == 5
    with pytest.raises(ValueError, match="alphabet"):
        tok.encode("abz")
    with pytest.raises(ValueError, match="alphabet"):
        CharTokenizer("aa")


def test_untrained_perplexity_is_near_vocab_size_and_training_learns_a_pattern():
    torch.set_num_threads(1)
    vocab = 12
    model = build_causal_lm(vocab, n_positions=16, n_embd=32, n_layer=1, n_head=2, seed=0)
    rng = np.random.default_rng(0)
    starts = rng.integers(1, vocab, size=400)
    seqs = ((starts[:, None] + np.arange(10)[None, :] - 1) % (vocab - 1)) + 1  # counting up
    before = sequence_perplexity(model, seqs)
    assert before.shape == (400,)
    assert 0.5 * (vocab - 1) < before.mean() < 2 * vocab
    losses = train_lm(model, seqs, epochs=8, batch_size=32, lr=3e-3, progress=False)
    assert losses[-1] < losses[0]
    after = sequence_perplexity(model, seqs)
    assert after.mean() < 0.5 * before.mean()


def test_training_is_seeded():
    seqs = np.random.default_rng(1).integers(1, 8, size=(64, 6))
    outs = []
    for _ in range(2):
        m = build_causal_lm(8, n_positions=8, n_embd=16, n_layer=1, n_head=2, seed=3)
        train_lm(m, seqs, epochs=1, batch_size=16, progress=False, seed=5)
        outs.append(sequence_perplexity(m, seqs))
    assert np.array_equal(outs[0], outs[1])


def test_bad_sequences_raise():
    m = build_causal_lm(8, n_positions=8, n_embd=16, n_layer=1, n_head=2)
    with pytest.raises(ValueError, match="sequences"):
        sequence_perplexity(m, np.zeros((2, 3), dtype=int))  # BOS inside
    with pytest.raises(ValueError, match="sequences"):
        sequence_perplexity(m, np.ones(3, dtype=int))
    with pytest.raises(ValueError, match="n_positions"):
        train_lm(m, np.ones((2, 9), dtype=int), progress=False)
    with pytest.raises(ValueError, match="vocab_size"):
        build_causal_lm(1)
