"""A small causal language model for the book: built from a `transformers` config, never a hub.

* :class:`CharTokenizer`: characters <-> integer ids (id 0 is BOS), for chapters with text;
  chapters with their own integer vocabularies use ids ``1..vocab_size`` directly (0 is BOS).
* :func:`build_causal_lm`: a ``GPT2LMHeadModel`` with a small vocabulary (2 layers, d = 64 by
  default), the warnings of tiny configs silenced (bos/eos ids, ``loss_type``).
* :func:`train_lm`: AdamW over (N, L) token arrays, seeded, with a tqdm bar.
* :func:`sequence_perplexity`: exp of the mean next-token negative log-likelihood of each sequence.

Shapes: ``sequences`` are int arrays (N, L) of token ids in 1..vocab_size−1; the model sees
[BOS, x_1 .. x_{L−1}] and predicts x_1 .. x_L.
"""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F

from icml25.common.checks import check_index_array, check_int, check_positive, check_seed
from icml25.common.training import minibatch_training

BOS = 0

__all__ = ["BOS", "CharTokenizer", "build_causal_lm", "sequence_perplexity", "train_lm"]


class CharTokenizer:
    """Characters of ``alphabet`` <-> ids 1..len(alphabet); 0 is BOS."""

    def __init__(self, alphabet: str) -> None:
        if not isinstance(alphabet, str):
            raise TypeError(f"alphabet must be a str, got {type(alphabet).__name__}")
        if not alphabet or len(set(alphabet)) != len(alphabet):
            raise ValueError("alphabet must be a non-empty string of distinct characters")
        self.alphabet = alphabet
        self.index = {ch: i + 1 for i, ch in enumerate(alphabet)}

    @property
    def vocab_size(self) -> int:
        """Number of ids, BOS included."""
        return len(self.alphabet) + 1

    def encode(self, text: str) -> list[int]:
        """Ids of the characters of ``text`` (unknown characters raise ValueError)."""
        if not isinstance(text, str):
            raise TypeError(f"text must be a str, got {type(text).__name__}")
        missing = sorted(set(text) - set(self.index))
        if missing:
            raise ValueError(f"text has characters outside the alphabet: {missing}")
        return [self.index[ch] for ch in text]

    def decode(self, ids) -> str:
        """Characters of ``ids``; BOS is skipped."""
        ids = check_index_array("ids", ids, self.vocab_size, min_size=0).reshape(-1).tolist()
        return "".join(self.alphabet[i - 1] for i in ids if i != BOS)


def build_causal_lm(
    vocab_size: int,
    n_positions: int = 64,
    n_layer: int = 2,
    n_embd: int = 64,
    n_head: int = 4,
    seed: int = 0,
):
    """A ``GPT2LMHeadModel`` built from a config (no download), id 0 as BOS/EOS, no dropout."""
    vocab_size = check_int("vocab_size", vocab_size, 2)
    n_positions = check_int("n_positions", n_positions, 2)
    n_embd, n_head = check_int("n_embd", n_embd), check_int("n_head", n_head)
    if n_embd % n_head:
        raise ValueError(f"n_embd ({n_embd}) must be divisible by n_head ({n_head})")
    n_layer, seed = check_int("n_layer", n_layer), check_seed("seed", seed)
    from transformers import GPT2Config, GPT2LMHeadModel
    from transformers.utils import logging as hf_logging

    hf_logging.set_verbosity_error()
    torch.manual_seed(seed)
    config = GPT2Config(
        vocab_size=vocab_size,
        n_positions=n_positions,
        n_embd=n_embd,
        n_layer=n_layer,
        n_head=n_head,
        resid_pdrop=0.0,
        embd_pdrop=0.0,
        attn_pdrop=0.0,
        bos_token_id=BOS,
        eos_token_id=BOS,
        loss_type="ForCausalLM",
    )
    return GPT2LMHeadModel(config)


def _check_model(model) -> None:
    config = getattr(model, "config", None)
    if not isinstance(model, torch.nn.Module) or not hasattr(config, "vocab_size"):
        raise TypeError(f"model must be a transformers causal LM, got {type(model).__name__}")


def _check_sequences(sequences, vocab_size: int) -> torch.Tensor:
    arr = check_index_array("sequences", sequences, vocab_size, low=1, ndim=2)  # 0 is BOS
    return torch.from_numpy(arr.astype(np.int64))


def _with_bos(x: torch.Tensor) -> torch.Tensor:
    return torch.cat([torch.full((x.shape[0], 1), BOS, dtype=x.dtype), x[:, :-1]], dim=1)


def train_lm(
    model,
    sequences,
    epochs: int = 1,
    batch_size: int = 64,
    lr: float = 3e-3,
    seed: int = 0,
    progress: bool = True,
) -> list[float]:
    """Train ``model`` on next-token prediction over ``sequences`` (N, L); returns batch losses."""
    _check_model(model)
    vocab = model.config.vocab_size
    x = _check_sequences(sequences, vocab)
    if x.shape[1] > getattr(model.config, "n_positions", x.shape[1]):
        raise ValueError(f"sequences are longer ({x.shape[1]}) than n_positions")
    epochs = check_int("epochs", epochs)
    batch_size = check_int("batch_size", batch_size)
    lr = check_positive("lr", lr)
    g = torch.Generator().manual_seed(check_seed("seed", seed))
    opt = torch.optim.AdamW(model.parameters(), lr=lr)
    inp = _with_bos(x)

    def step(idx: torch.Tensor) -> torch.Tensor:
        logits = model(input_ids=inp[idx]).logits
        return F.cross_entropy(logits.reshape(-1, vocab), x[idx].reshape(-1))

    return minibatch_training(model, opt, step, len(x), epochs, batch_size, g, progress)


@torch.no_grad()
def sequence_perplexity(model, sequences, batch_size: int = 512) -> np.ndarray:
    """Per-sequence perplexity exp(−(1/L) Σ_t log p(x_t | x_<t)), shape (N,)."""
    _check_model(model)
    x = _check_sequences(sequences, model.config.vocab_size)
    if x.shape[1] > getattr(model.config, "n_positions", x.shape[1]):
        raise ValueError(f"sequences are longer ({x.shape[1]}) than n_positions")
    batch_size = check_int("batch_size", batch_size)
    model.eval()
    out = []
    for start in range(0, len(x), batch_size):
        xb = x[start : start + batch_size]
        logp = F.log_softmax(model(input_ids=_with_bos(xb)).logits, dim=-1)
        nll = -logp.gather(-1, xb[..., None]).squeeze(-1).mean(dim=1)
        out.append(nll.exp())
    return torch.cat(out).numpy()
