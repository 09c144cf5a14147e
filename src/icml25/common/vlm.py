"""A tiny vision-language model (VLM) for the book, trained from scratch (no image-text model ships
offline in a wheel).

:class:`TinyVLM` = an image encoder, a *linear* projector ``proj`` and the GPT-2 of
:func:`icml25.common.lm.build_causal_lm` (``lm``), fed ``inputs_embeds``:

* ``encoder="cnn"``: a small conv stack (two 3×3 conv + GELU + 2×2 max-pool blocks of
  ``cnn_width // 2`` and ``cnn_width`` channels), average-pooled to a grid of ``n_image_tokens``
  cells; each cell is one image feature (``cnn_width`` numbers).
* ``encoder="patches"``: no parameters; the image is split into a grid of ``n_image_tokens``
  patches, each flattened to ``C·(H/r)·(W/c)`` numbers (an 8×8 digit with 4 tokens gives four
  4×4 patches of 16 pixels). The grid is r × c with r the largest divisor of ``n_image_tokens``
  not above its square root (4 → 2 × 2, 2 → 1 × 2).
* ``proj``: ``nn.Linear(feature_dim, n_embd)`` applied to every feature: image j of a row gives
  ``n_image_tokens`` embeddings, which replace that row's placeholders ``image_token_id`` number
  ``j·n .. (j+1)·n − 1`` (in order of position), n = ``n_image_tokens``.

Shapes: ``input_ids`` (B, L) ints in [0, vocab_size) (0 is BOS, as in ``icml25.common.lm``; the
caller adds it); ``images`` (B, m, C, H, W) floats, m images per row. A row may use fewer than m
images (its placeholders then fill the first ones; the rest are padding), but its number of
placeholders must be a multiple of n. Without images (``images=None``) no placeholder may appear.
Pad rows of different lengths at the *right*: the model is causal, so padding never changes the
logits of earlier positions. ``logits[:, t]`` predicts ``input_ids[:, t + 1]``.

State-dict keys: ``encoder.*`` (none for "patches"), ``proj.{weight, bias}``,
``lm.transformer.{wte, wpe, h.<i>, ln_f}.*`` and ``lm.lm_head.weight`` (tied to ``wte``).
"""

from __future__ import annotations

import numbers

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from icml25.common.checks import check_choice, check_index, check_int, check_seed
from icml25.common.lm import build_causal_lm

__all__ = ["ENCODERS", "TinyVLM"]

#: The image encoders of :class:`TinyVLM`.
ENCODERS = ("cnn", "patches")


def _grid(n: int) -> tuple[int, int]:
    """(r, c) with r·c = n, r the largest divisor of n with r ≤ √n."""
    r = max(d for d in range(1, int(np.sqrt(n)) + 1) if n % d == 0)
    return r, n // r


class _Patches(nn.Module):
    """(N, C, H, W) -> (N, r·c, C·(H/r)·(W/c)): row-major grid of flattened patches."""

    def __init__(self, grid: tuple[int, int]) -> None:
        super().__init__()
        self.grid = grid

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        n, ch, h, w = x.shape
        r, c = self.grid
        x = x.reshape(n, ch, r, h // r, c, w // c).permute(0, 2, 4, 1, 3, 5)
        return x.reshape(n, r * c, ch * (h // r) * (w // c))


class _ConvStack(nn.Module):
    """(N, C, H, W) -> (N, r·c, width): two conv blocks, then average-pooled to the grid."""

    def __init__(self, in_channels: int, width: int, grid: tuple[int, int]) -> None:
        super().__init__()
        half = max(1, width // 2)
        self.net = nn.Sequential(
            nn.Conv2d(in_channels, half, 3, padding=1),
            nn.GELU(),
            nn.MaxPool2d(2),
            nn.Conv2d(half, width, 3, padding=1),
            nn.GELU(),
            nn.MaxPool2d(2),
            nn.AdaptiveAvgPool2d(grid),
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.net(x).flatten(2).transpose(1, 2)


def _check_image_shape(image_shape: object) -> tuple[int, int, int]:
    if not isinstance(image_shape, (tuple, list)) or len(image_shape) != 3:
        raise TypeError(f"image_shape must be a tuple (C, H, W) of 3 ints, got {image_shape!r}")
    return tuple(check_int("image_shape", v, 1) for v in image_shape)


class TinyVLM(nn.Module):
    """Image encoder -> linear projector -> GPT-2 over token embeddings (see the module docstring).

    Args:
        vocab_size: number of token ids (BOS 0 included).
        image_token_id: the placeholder id in [1, vocab_size) whose positions take image tokens.
        image_shape: (C, H, W) of one image.
        encoder: "cnn" or "patches".
        n_image_tokens: embeddings per image, n.
        n_layer, n_embd, n_head, n_positions: the GPT-2 (``build_causal_lm``); d = ``n_embd``.
        seed: initialisation seed (encoder, projector and LM).
        cnn_width: channels of the conv stack's last block (its feature size); "cnn" only.
    """

    def __init__(
        self,
        vocab_size: int,
        image_token_id: int,
        image_shape: tuple[int, int, int] = (3, 32, 32),
        encoder: str = "cnn",
        n_image_tokens: int = 4,
        n_layer: int = 2,
        n_embd: int = 64,
        n_head: int = 4,
        n_positions: int = 64,
        seed: int = 0,
        cnn_width: int = 32,
    ) -> None:
        super().__init__()
        vocab_size = check_int("vocab_size", vocab_size, 2)
        self.image_token_id = check_index("image_token_id", image_token_id, vocab_size, low=1)
        self.image_shape = _check_image_shape(image_shape)
        self.encoder_kind = check_choice("encoder", encoder, ENCODERS)
        self.n_image_tokens = check_int("n_image_tokens", n_image_tokens, 1)
        n_positions = check_int("n_positions", n_positions, 2)
        if self.n_image_tokens > n_positions:
            raise ValueError(
                f"n_image_tokens ({self.n_image_tokens}) must be <= n_positions ({n_positions})"
            )
        seed = check_seed("seed", seed)
        cnn_width = check_int("cnn_width", cnn_width, 1)
        ch, h, w = self.image_shape
        grid = _grid(self.n_image_tokens)
        if encoder == "patches" and (h % grid[0] or w % grid[1]):
            raise ValueError(
                f"image_shape {self.image_shape} cannot be cut into a {grid[0]}x{grid[1]} grid "
                f"of patches (n_image_tokens={self.n_image_tokens})"
            )
        if encoder == "cnn" and (h < 4 or w < 4):
            raise ValueError(f"image_shape {self.image_shape}: the cnn needs H, W >= 4")
        with torch.random.fork_rng(devices=[]):  # seeded, and the global RNG is left alone
            lm = build_causal_lm(vocab_size, n_positions, n_layer, n_embd, n_head, seed)
            torch.manual_seed(seed)
            if encoder == "patches":
                enc: nn.Module = _Patches(grid)
                feature_dim = ch * (h // grid[0]) * (w // grid[1])
            else:
                enc, feature_dim = _ConvStack(ch, cnn_width, grid), cnn_width
            proj = nn.Linear(feature_dim, n_embd)
        self.encoder, self.proj, self.lm = enc, proj, lm
        self.feature_dim = feature_dim

    # ------------------------------------------------------------------ properties
    @property
    def vocab_size(self) -> int:
        return self.lm.config.vocab_size

    @property
    def n_positions(self) -> int:
        return self.lm.config.n_positions

    @property
    def n_embd(self) -> int:
        return self.lm.config.n_embd

    @property
    def n_layer(self) -> int:
        return self.lm.config.n_layer

    @property
    def device(self) -> torch.device:
        return self.proj.weight.device

    # ------------------------------------------------------------------ input checks
    def _ids(self, input_ids: object, name: str = "input_ids") -> torch.Tensor:
        if isinstance(input_ids, torch.Tensor):
            if input_ids.dtype.is_floating_point or input_ids.dtype == torch.bool:
                raise TypeError(f"{name} must hold integers, got dtype {input_ids.dtype}")
            if input_ids.ndim != 2 or input_ids.numel() == 0:
                raise ValueError(f"{name} must be a non-empty (B, L) array, got {input_ids.shape}")
            lo, hi = int(input_ids.min()), int(input_ids.max())
            if lo < 0 or hi >= self.vocab_size:
                raise ValueError(
                    f"{name} must hold ids in [0, vocab_size={self.vocab_size}), got [{lo}, {hi}]"
                )
            ids = input_ids.long()
        else:
            from icml25.common.checks import check_index_array

            arr = check_index_array(
                name, input_ids, self.vocab_size, ndim=2, high_name="vocab_size"
            )
            ids = torch.from_numpy(arr)
        if ids.shape[1] > self.n_positions:
            raise ValueError(
                f"{name} is longer ({ids.shape[1]}) than n_positions ({self.n_positions})"
            )
        return ids.to(self.device)

    def _images(self, images: object, batch: int | None = None) -> torch.Tensor:
        if isinstance(images, np.ndarray):
            if not np.issubdtype(images.dtype, np.number) or images.dtype == bool:
                raise TypeError(f"images must hold real numbers, got dtype {images.dtype}")
            images = torch.from_numpy(np.asarray(images, dtype=np.float32))
        if not isinstance(images, torch.Tensor):
            raise TypeError(f"images must be a tensor (B, m, C, H, W), got {type(images).__name__}")
        if images.ndim != 5 or tuple(images.shape[2:]) != self.image_shape:
            raise ValueError(
                f"images must have shape (B, m, {', '.join(map(str, self.image_shape))}), "
                f"got {tuple(images.shape)}"
            )
        if images.shape[0] == 0 or images.shape[1] == 0:
            raise ValueError(f"images must not be empty, got shape {tuple(images.shape)}")
        if not images.is_floating_point():
            images = images.float()
        if not bool(torch.isfinite(images).all()):
            raise ValueError("images must be finite (no NaN or inf)")
        if batch is not None and images.shape[0] != batch:
            raise ValueError(f"images has {images.shape[0]} rows but input_ids has {batch}")
        return images.to(self.device, torch.float32)

    # ------------------------------------------------------------------ the model
    def image_features(self, images: torch.Tensor) -> torch.Tensor:
        """Projected image tokens, (B, m, C, H, W) -> (B, m, n_image_tokens, n_embd)."""
        images = self._images(images)
        b, m = images.shape[:2]
        feats = self.encoder(images.reshape(b * m, *self.image_shape))  # (B·m, n, feature_dim)
        return self.proj(feats).reshape(b, m, self.n_image_tokens, self.n_embd)

    def embed(self, input_ids: torch.Tensor, images: torch.Tensor | None = None) -> torch.Tensor:
        """Token embeddings with the placeholders replaced by image tokens: (B, L, n_embd).

        Position embeddings are not included (GPT-2 adds them to ``inputs_embeds``).
        """
        ids = self._ids(input_ids)
        emb = self.lm.transformer.wte(ids)
        is_img = ids == self.image_token_id
        counts = is_img.sum(dim=1)
        if images is None:
            if bool(counts.any()):
                raise ValueError(
                    f"input_ids holds image_token_id={self.image_token_id} placeholders but "
                    "images is None"
                )
            return emb
        images = self._images(images, ids.shape[0])
        n, m = self.n_image_tokens, images.shape[1]
        bad = (counts % n != 0) | (counts > m * n)
        if bool(bad.any()):
            row = int(bad.nonzero()[0, 0])
            raise ValueError(
                f"row {row} of input_ids has {int(counts[row])} placeholders: need a multiple of "
                f"n_image_tokens={n}, at most {m * n} for the {m} images per row given"
            )
        tokens = self.image_features(images).reshape(ids.shape[0], m * n, self.n_embd)
        rows, cols = is_img.nonzero(as_tuple=True)
        rank = (is_img.cumsum(dim=1) - 1)[rows, cols]
        return emb.index_put((rows, cols), tokens[rows, rank])

    def forward(self, input_ids: torch.Tensor, images: torch.Tensor | None = None) -> torch.Tensor:
        """Next-token logits (B, L, vocab_size); ``logits[:, t]`` predicts ``input_ids[:, t+1]``."""
        return self.lm(inputs_embeds=self.embed(input_ids, images)).logits

    def hidden_states(
        self, input_ids: torch.Tensor, images: torch.Tensor | None = None
    ) -> tuple[torch.Tensor, ...]:
        """The residual stream, ``n_layer + 1`` tensors (B, L, n_embd): [0] = embeddings plus
        positions, [i] = after block i (the last with ``ln_f`` applied, as in transformers)."""
        out = self.lm.transformer(
            inputs_embeds=self.embed(input_ids, images), output_hidden_states=True
        )
        return tuple(out.hidden_states)

    def sequence_logprob(
        self,
        input_ids: torch.Tensor,
        images: torch.Tensor | None,
        target_mask: torch.Tensor,
    ) -> torch.Tensor:
        """Σ_t log p(x_t | x_<t, images) over the positions t where ``target_mask`` (B, L) is
        True; shape (B,). Position 0 has no prediction and must not be a target. Differentiable:
        ``-model.sequence_logprob(...).mean()`` is a training loss."""
        ids = self._ids(input_ids)
        if isinstance(target_mask, np.ndarray):
            target_mask = torch.from_numpy(target_mask)
        if not isinstance(target_mask, torch.Tensor):
            raise TypeError(
                f"target_mask must be a bool tensor (B, L), got {type(target_mask).__name__}"
            )
        if target_mask.dtype != torch.bool:
            raise TypeError(f"target_mask must be a bool tensor, got dtype {target_mask.dtype}")
        if tuple(target_mask.shape) != tuple(ids.shape):
            raise ValueError(
                f"target_mask must have the shape of input_ids {tuple(ids.shape)}, "
                f"got {tuple(target_mask.shape)}"
            )
        target_mask = target_mask.to(ids.device)
        if bool(target_mask[:, 0].any()):
            raise ValueError("target_mask[:, 0] must be False: nothing predicts position 0")
        logp = F.log_softmax(self.forward(ids, images)[:, :-1].float(), dim=-1)
        tok = logp.gather(-1, ids[:, 1:, None]).squeeze(-1)  # (B, L-1)
        return (tok * target_mask[:, 1:]).sum(dim=1)

    @torch.no_grad()
    def generate(
        self,
        input_ids: torch.Tensor,
        images: torch.Tensor | None = None,
        max_new_tokens: int = 8,
        eos_token_id: int | None = None,
        prompt_lengths: torch.Tensor | None = None,
    ) -> torch.Tensor:
        """Greedy decoding; returns only the new tokens, (B, max_new_tokens) int64.

        ``prompt_lengths`` (B,) lets rows of one batch have prompts of different lengths (row b's
        prompt is ``input_ids[b, :prompt_lengths[b]]``, the rest padding); default: all L. After
        ``eos_token_id`` a row keeps emitting it. The placeholder ``image_token_id`` is never
        generated. Runs in eval mode (restored afterwards); no cache: the sequences are short.
        """
        ids = self._ids(input_ids)
        self.embed(ids, images)  # checks the images and the placeholders before anything else
        b, length = ids.shape
        max_new_tokens = check_int("max_new_tokens", max_new_tokens, 1)
        if eos_token_id is not None:
            eos_token_id = check_index("eos_token_id", eos_token_id, self.vocab_size)
        if prompt_lengths is None:
            lengths = torch.full((b,), length, dtype=torch.long)
        else:
            if isinstance(prompt_lengths, torch.Tensor):
                prompt_lengths = prompt_lengths.cpu().numpy()
            if isinstance(prompt_lengths, numbers.Number):
                raise TypeError("prompt_lengths must be an array (B,) of ints")
            from icml25.common.checks import check_index_array

            arr = check_index_array("prompt_lengths", prompt_lengths, low=1, ndim=1)
            if len(arr) != b:
                raise ValueError(f"prompt_lengths has {len(arr)} entries, input_ids {b} rows")
            if arr.max() > length:
                raise ValueError(
                    f"prompt_lengths must be <= the length of input_ids ({length}), "
                    f"got {int(arr.max())}"
                )
            lengths = torch.from_numpy(arr)
        lengths = lengths.to(ids.device)
        total = int(lengths.max()) + max_new_tokens
        if total > self.n_positions:
            raise ValueError(
                f"prompt ({int(lengths.max())}) + max_new_tokens ({max_new_tokens}) exceeds "
                f"n_positions ({self.n_positions})"
            )
        buf = torch.zeros((b, total), dtype=torch.long, device=ids.device)
        buf[:, :length] = ids
        pos = torch.arange(total, device=ids.device)
        buf[pos[None, :] >= lengths[:, None]] = 0  # the padding after each prompt
        out = torch.zeros((b, max_new_tokens), dtype=torch.long, device=ids.device)
        done = torch.zeros(b, dtype=torch.bool, device=ids.device)
        rows = torch.arange(b, device=ids.device)
        training = self.training
        self.eval()
        try:
            for step in range(max_new_tokens):
                at = lengths + step  # where the next token goes, (B,)
                width = int(at.max())
                logits = self.forward(buf[:, :width], images)[rows, at - 1]
                logits[:, self.image_token_id] = -torch.inf
                nxt = logits.argmax(dim=-1)
                if eos_token_id is not None:
                    nxt = torch.where(done, torch.full_like(nxt, eos_token_id), nxt)
                    done |= nxt == eos_token_id
                out[:, step] = nxt
                buf[rows, at] = nxt
                if eos_token_id is not None and bool(done.all()):
                    out[:, step + 1 :] = eos_token_id
                    break
        finally:
            self.train(training)
        return out
