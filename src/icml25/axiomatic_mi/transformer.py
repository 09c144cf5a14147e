"""The authors' 2-layer, LayerNorm-free transformer for 2-SAT, its training loop and checkpoint.

Parametrisation of the official code (``nilspalumbo/sat-mi``, ``model.py``), written with
matmuls: learned token and position embeddings (no LayerNorm anywhere), per block a causal
multi-head attention without biases (d_head = d_model / heads) and a ReLU MLP with biases, an
untied unembedding. Shapes: tokens (N, L) with L = 4 m + 1, residual (N, L, d_model),
attention patterns (N, H, L, L), MLP hidden (N, L, d_mlp), logits (N, L, vocab).
The prediction is SAT when the ``s`` logit exceeds the ``u`` logit at the last position.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from icml25.axiomatic_mi.data import N_VARS_RANGE, _check_tokens
from icml25.common.checks import check_instance, check_int, check_positive, check_real, check_seed

__all__ = ["TinyTransformer", "load_checkpoint", "train_2sat"]

CHECKPOINT = Path("axiomatic_mi") / "sat_mi_900.pth"


class Block(nn.Module):
    """Causal attention (no biases) + ReLU MLP, both added to the residual stream."""

    def __init__(self, d_model: int, heads: int, d_mlp: int, n_ctx: int):
        super().__init__()
        self.heads, self.d_head = heads, d_model // heads
        self.q = nn.Linear(d_model, d_model, bias=False)
        self.k = nn.Linear(d_model, d_model, bias=False)
        self.v = nn.Linear(d_model, d_model, bias=False)
        self.o = nn.Linear(d_model, d_model, bias=False)
        self.mlp_in = nn.Linear(d_model, d_mlp)
        self.mlp_out = nn.Linear(d_mlp, d_model)
        self.register_buffer("causal", torch.tril(torch.ones(n_ctx, n_ctx, dtype=torch.bool)))

    def attend(self, x: torch.Tensor, last_only: bool = False) -> tuple[torch.Tensor, torch.Tensor]:
        """(attention output (N, Lq, d), pattern (N, H, Lq, L)); Lq = 1 with ``last_only``."""
        n, length, d = x.shape
        split = lambda t: t.view(n, -1, self.heads, self.d_head).transpose(1, 2)  # noqa: E731
        xq = x[:, -1:] if last_only else x
        q, k, v = split(self.q(xq)), split(self.k(x)), split(self.v(x))
        scores = q @ k.transpose(-1, -2) / math.sqrt(self.d_head)
        mask = self.causal[:length, :length][-q.shape[2] :]
        pattern = scores.masked_fill(~mask, float("-inf")).softmax(-1)
        z = (pattern @ v).transpose(1, 2).reshape(n, -1, d)
        return self.o(z), pattern


class TinyTransformer(nn.Module):
    """2 layers, d_model = 128, heads (1, 4), d_mlp = 512, vocabulary 2 n_vars + 6, context
    4 n_clauses + 1 (the authors' configuration)."""

    def __init__(
        self,
        n_vars: int = 5,
        n_clauses: int = 10,
        d_model: int = 128,
        heads: tuple[int, ...] = (1, 4),
        d_mlp: int = 512,
        seed: int = 0,
    ):
        super().__init__()
        self.n_vars = check_int("n_vars", n_vars, *N_VARS_RANGE)
        self.n_clauses = check_int("n_clauses", n_clauses, 1)
        d_model = check_int("d_model", d_model, 1)
        d_mlp = check_int("d_mlp", d_mlp, 1)
        if isinstance(heads, (str, bytes)) or not isinstance(heads, (tuple, list)) or not heads:
            raise TypeError(f"heads must be a non-empty tuple of ints, got {heads!r}")
        heads = tuple(check_int("heads", h, 1) for h in heads)
        if any(d_model % h for h in heads):
            raise ValueError(f"heads must divide d_model={d_model}, got {heads}")
        seed = check_seed("seed", seed)
        self.vocab, self.n_ctx = 2 * self.n_vars + 6, 4 * self.n_clauses + 1
        self.sat_token, self.unsat_token = 2 * self.n_vars + 3, 2 * self.n_vars + 4
        with torch.random.fork_rng():
            torch.manual_seed(seed)
            self.embed = nn.Embedding(self.vocab, d_model)
            self.pos = nn.Parameter(torch.randn(self.n_ctx, d_model) / math.sqrt(d_model))
            self.blocks = nn.ModuleList(Block(d_model, h, d_mlp, self.n_ctx) for h in heads)
            self.unembed = nn.Linear(d_model, self.vocab, bias=False)

    def _tokens(self, tokens: object) -> torch.Tensor:
        arr = _check_tokens(tokens, self.n_vars)
        if arr.shape[1] != self.n_ctx:
            raise ValueError(f"tokens must have width {self.n_ctx}, got {arr.shape[1]}")
        return torch.as_tensor(arr, device=self.pos.device)

    def run_with_cache(self, tokens: object) -> tuple[torch.Tensor, dict[str, torch.Tensor]]:
        """Logits (N, L, vocab) and the activations: ``resid_pre.0``, and per block l
        ``pattern.l`` (N, H, L, L), ``attn_out.l``, ``resid_mid.l``, ``hidden.l`` (N, L, d_mlp),
        ``resid_post.l``."""
        x = self.embed(self._tokens(tokens)) + self.pos
        cache = {"resid_pre.0": x}
        for i, block in enumerate(self.blocks):
            attn, pattern = block.attend(x)
            mid = x + attn
            hidden = F.relu(block.mlp_in(mid))
            x = mid + block.mlp_out(hidden)
            cache.update({f"pattern.{i}": pattern, f"attn_out.{i}": attn, f"resid_mid.{i}": mid})
            cache.update({f"hidden.{i}": hidden, f"resid_post.{i}": x})
        return self.unembed(x), cache

    def forward(self, tokens: object) -> torch.Tensor:
        """Logits (N, L, vocab)."""
        return self.run_with_cache(tokens)[0]

    def last_logits(self, tokens: object) -> torch.Tensor:
        """(N, vocab) logits at the last position; the last block runs on that query only."""
        x = self.embed(self._tokens(tokens)) + self.pos
        for i, block in enumerate(self.blocks):
            last = i == len(self.blocks) - 1
            mid = (x[:, -1:] if last else x) + block.attend(x, last_only=last)[0]
            x = mid + block.mlp_out(F.relu(block.mlp_in(mid)))
        return self.unembed(x[:, -1])

    @torch.no_grad()
    def predict_sat(self, tokens: object, batch_size: int = 5000) -> np.ndarray:
        """(N,) bool: the ``s`` logit exceeds the ``u`` logit at the last position."""
        tok = self._tokens(tokens)
        batch_size = check_int("batch_size", batch_size, 1)
        out = []
        for start in range(0, tok.shape[0], batch_size):
            logits = self.last_logits(tok[start : start + batch_size])
            out.append((logits[:, self.sat_token] > logits[:, self.unsat_token]).cpu().numpy())
        return np.concatenate(out)

    @classmethod
    def from_sat_mi(
        cls, state_dict: dict, n_vars: int | None = None, n_clauses: int | None = None
    ) -> TinyTransformer:
        """Build the model from a state dict of the official code (keys ``embed.W_E`` ...).

        ``n_vars`` and ``n_clauses`` default to what the weights imply (vocabulary 2n + 6 =
        ``W_E.shape[1]``, sequence length 4m + 1 = ``W_pos.shape[0]``); given, they must match.
        """
        check_instance("state_dict", state_dict, dict)
        if "model" in state_dict and isinstance(state_dict["model"], dict):
            state_dict = state_dict["model"]
        try:
            W_E = state_dict["embed.W_E"]  # (d, vocab)
            n_blocks = 1 + max(int(k.split(".")[1]) for k in state_dict if k.startswith("blocks."))
            heads = tuple(state_dict[f"blocks.{i}.attn.W_Q"].shape[0] for i in range(n_blocks))
            d_mlp = state_dict["blocks.0.mlp.W_in"].shape[0]
        except (KeyError, ValueError, AttributeError) as err:
            raise ValueError(f"state_dict is not a sat-mi transformer state dict ({err})") from None
        vocab, length = int(W_E.shape[1]), int(state_dict["pos_embed.W_pos"].shape[0])
        if (vocab - 6) % 2 or vocab < 8 or (length - 1) % 4 or length < 5:
            raise ValueError(
                f"state_dict has vocabulary {vocab} and length {length}: not 2n + 6 and 4m + 1"
            )
        implied = {"n_vars": (vocab - 6) // 2, "n_clauses": (length - 1) // 4}
        for name, given in (("n_vars", n_vars), ("n_clauses", n_clauses)):
            if given is not None and check_int(name, given, 1) != implied[name]:
                raise ValueError(f"{name}={given} but the state dict implies {implied[name]}")
        n_vars, n_clauses = implied["n_vars"], implied["n_clauses"]
        model = cls(n_vars, n_clauses, W_E.shape[0], heads, d_mlp)
        ours = {"embed.weight": W_E.T, "pos": state_dict["pos_embed.W_pos"]}
        ours["unembed.weight"] = state_dict["unembed.W_U"].T
        for i in range(n_blocks):
            p = f"blocks.{i}."
            for name in "qkv":  # (H, d_head, d) -> (H * d_head, d)
                w = state_dict[p + f"attn.W_{name.upper()}"]
                ours[p + f"{name}.weight"] = w.reshape(-1, w.shape[-1])
            ours[p + "o.weight"] = state_dict[p + "attn.W_O"]
            ours[p + "mlp_in.weight"] = state_dict[p + "mlp.W_in"]
            ours[p + "mlp_in.bias"] = state_dict[p + "mlp.b_in"]
            ours[p + "mlp_out.weight"] = state_dict[p + "mlp.W_out"]
            ours[p + "mlp_out.bias"] = state_dict[p + "mlp.b_out"]
            ours[p + "causal"] = model.blocks[i].causal
        model.load_state_dict(
            {k: torch.as_tensor(v).float() if k[-6:] != "causal" else v for k, v in ours.items()}
        )
        return model.eval()


def train_2sat(
    model: TinyTransformer,
    tokens: object,
    labels: object,
    epochs: int,
    batch_size: int = 10_000,
    lr: float = 1e-3,
    weight_decay: float = 1.0,
    warmup: int = 10,
    seed: int = 0,
) -> list[float]:
    """The authors' recipe: AdamW (betas 0.9, 0.98), learning rate ramped linearly over
    ``warmup`` epochs, cross-entropy of the ``s``/``u`` token at the last position only.
    Returns the mean training loss of every epoch."""
    check_instance("model", model, TinyTransformer)
    tok = model._tokens(tokens)
    y = np.asarray(labels)
    if y.shape != (tok.shape[0],) or not np.isin(y, (0, 1)).all():
        raise ValueError(f"labels must be (N,) = ({tok.shape[0]},) of 0/1, got {y.shape}")
    epochs = check_int("epochs", epochs, 1)
    batch_size = check_int("batch_size", batch_size, 1)
    lr = check_positive("lr", lr)
    weight_decay = check_real("weight_decay", weight_decay, 0.0)
    warmup = check_int("warmup", warmup, 0)
    gen = torch.Generator().manual_seed(check_seed("seed", seed))
    target = torch.as_tensor(
        np.where(y == 1, model.sat_token, model.unsat_token), device=tok.device
    )
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=weight_decay, betas=(0.9, 0.98))
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda e: min(e / warmup, 1.0) if warmup else 1.0
    )
    losses = []
    model.train()
    for _ in range(epochs):
        perm = torch.randperm(tok.shape[0], generator=gen).to(tok.device)
        total = 0.0
        for start in range(0, tok.shape[0], batch_size):
            idx = perm[start : start + batch_size]
            loss = F.cross_entropy(model(tok[idx])[:, -1].float(), target[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += loss.item() * idx.numel()
        sched.step()
        losses.append(total / tok.shape[0])
    model.eval()
    return losses


def load_checkpoint(path: str | Path | None = None) -> TinyTransformer:
    """The committed checkpoint (default ``data/axiomatic_mi/sat_mi_900.pth``, the authors'
    model; see ``data/axiomatic_mi/README.md``), or a state-dict file at ``path``."""
    from icml25.common.paths import data_dir

    if path is None:
        path = data_dir() / CHECKPOINT
    if not isinstance(path, (str, Path)):
        raise TypeError(f"path must be a str or Path, got {type(path).__name__}")
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"path {path} is not a checkpoint file")
    state = torch.load(path, map_location="cpu", weights_only=True)
    if not isinstance(state, dict):
        raise ValueError(f"path {path} holds a {type(state).__name__}, not a state dict")
    if isinstance(state, dict) and "embed.W_E" in state.get("model", state):
        return TinyTransformer.from_sat_mi(state)
    model = TinyTransformer()
    model.load_state_dict(state.get("model", state))
    return model.eval()
