"""A learned generator G: a conditional VAE over the 8×8 glyph images, conditioned on the prompt.

The ``large``-scale stand-in for a learned text-to-image model. It is trained on ``n_pairs``
(prompt, image) pairs of the :class:`~icml25.stealix.world.GlyphGenerator` (random prompts, one
rendering each) and then replaces the renderer as G: :class:`CVAEGenerator` has the renderer's
interface (:attr:`slots`, :attr:`vocab`, :meth:`random_prompt`, :meth:`check_prompt`,
:meth:`generate`), so :func:`~icml25.stealix.attack.stealix_attack` and
:func:`~icml25.stealix.attack.baseline_attack` accept either.

Model (our choices; the paper uses Stable Diffusion). The condition c(p) is the concatenation of
one learned embedding (``emb`` entries) per slot token of the prompt p, (n, n_slots · emb). The
encoder q(z | x, p) = N(μ, diag σ²) reads [x/16, c(p)] through an MLP; the decoder reads
[z, c(p)] (z of ``latent`` entries) and returns one logit ℓ per pixel. A pixel of the UCI
preprocessing counts the ink among its 4×4 = 16 sub-pixels, so the likelihood is
Binomial(16, sigmoid(ℓ)) per pixel; the loss per image is the negative ELBO with its KL term
weighted by ``beta`` (β; β = 1 is the plain ELBO)

    L(x, p) = -Σ_pixels log Binomial(x | 16, sigmoid(ℓ)) + β · KL(q(z | x, p) ‖ N(0, I)),

up to the binomial coefficients (a constant). With β = 1 the latent z carried much of the
character and samples drawn from N(0, I) often showed another one; β = 2 (the default, our
choice among 1, 2 and 4 on a CPU run of 20k pairs) moves more of it into the condition.
:meth:`CVAEGenerator.generate` draws z ~ N(0, I) and returns the rounded mean 16 · sigmoid(ℓ),
an image in 0..16: the variation between images of one prompt comes from z, as the renderer's
from its nuisance jitter.
"""

from __future__ import annotations

import numpy as np
import torch
from torch import nn

from icml25.common.checks import check_int, check_positive, check_seed
from icml25.common.runtime import get_device
from icml25.stealix.world import GlyphGenerator, PromptSlots, check_images


class CVAEGenerator(PromptSlots, nn.Module):
    """G as a conditional VAE over 8×8 images in 0..16 (see the module docstring).

    ``vocab``: slot -> tuple of tokens (a generator's :attr:`vocab`); ``latent``: the size of z;
    ``hidden``: the width of the encoder's and the decoder's two hidden layers; ``emb``: the size
    of each slot token's embedding; ``seed``: the initial weights and the default stream of
    :meth:`generate`. Untrained until :func:`train_cvae` fits it; ``history`` holds the loss per
    epoch (the training loss L per image, in nats, with the β of :func:`train_cvae`).
    """

    def __init__(
        self,
        vocab: dict[str, tuple],
        latent: int = 4,
        hidden: int = 512,
        emb: int = 8,
        seed: int = 0,
    ) -> None:
        if not isinstance(vocab, dict) or not vocab:
            raise TypeError("vocab must be a non-empty dict slot -> tuple of tokens")
        if not all(isinstance(v, (tuple, list)) and v for v in vocab.values()):
            raise ValueError("vocab must map every slot to a non-empty tuple of tokens")
        latent = check_int("latent", latent, 1)
        hidden = check_int("hidden", hidden, 1)
        emb = check_int("emb", emb, 1)
        seed = check_seed("seed", seed)
        nn.Module.__init__(self)
        self.vocab: dict[str, tuple] = {s: tuple(v) for s, v in vocab.items()}
        self.slots: tuple[str, ...] = tuple(self.vocab)
        self.latent = latent
        self.history: list[float] = []
        self._rng = np.random.default_rng(seed)
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(seed)
            self.tokens = nn.ModuleList(nn.Embedding(len(v), emb) for v in self.vocab.values())
            n_c = emb * len(self.slots)
            self.encoder = nn.Sequential(
                nn.Linear(64 + n_c, hidden),
                nn.ReLU(),
                nn.Linear(hidden, hidden),
                nn.ReLU(),
                nn.Linear(hidden, 2 * latent),
            )
            self.decoder = nn.Sequential(
                nn.Linear(latent + n_c, hidden),
                nn.ReLU(),
                nn.Linear(hidden, hidden),
                nn.ReLU(),
                nn.Linear(hidden, 64),
            )

    def _ids(self, prompts: list[dict]) -> torch.Tensor:
        """(n, n_slots) token indices, one column per slot."""
        ids = [
            [
                next(k for k, v in enumerate(self.vocab[s]) if type(v) is type(p[s]) and v == p[s])
                for s in self.slots
            ]
            for p in prompts
        ]
        return torch.as_tensor(ids, dtype=torch.long)

    def _cond(self, ids: torch.Tensor) -> torch.Tensor:
        """c(p): (n, n_slots · emb), the slot embeddings concatenated."""
        return torch.cat([tok(ids[:, j]) for j, tok in enumerate(self.tokens)], dim=1)

    def _loss(
        self, x: torch.Tensor, cond: torch.Tensor, eps: torch.Tensor, beta: float = 1.0
    ) -> torch.Tensor:
        """Mean negative ELBO per image of ``x`` (n, 64) in 0..16, ``eps`` (n, latent) ~ N(0, I),
        with the KL term weighted by ``beta``."""
        mu, logvar = self.encoder(torch.cat([x / 16.0, cond], 1)).chunk(2, dim=1)
        z = mu + torch.exp(0.5 * logvar) * eps
        logits = self.decoder(torch.cat([z, cond], 1))
        # -log Binomial(x | 16, sigmoid(logit)) up to a constant = 16 · BCE(logit, x / 16)
        rec = 16.0 * nn.functional.binary_cross_entropy_with_logits(
            logits, x / 16.0, reduction="none"
        ).sum(1)
        kl = 0.5 * (mu.pow(2) + logvar.exp() - 1.0 - logvar).sum(1)
        return (rec + beta * kl).mean()

    @torch.no_grad()
    def generate(self, prompt: dict, m: int, seed: int | None = None) -> np.ndarray:
        """``m`` images (m, 64) in 0..16 of ``prompt``: z ~ N(0, I) drawn from ``seed`` (None:
        the generator's own stream), decoded, 16 · sigmoid(ℓ) rounded to integers."""
        prompt = self.check_prompt(prompt)
        m = check_int("m", m, 1)
        rng = self._rng if seed is None else np.random.default_rng(check_seed("seed", seed))
        z = torch.as_tensor(rng.standard_normal((m, self.latent)), dtype=torch.float32)
        device = next(self.parameters()).device
        cond = self._cond(self._ids([prompt]).to(device)).expand(m, -1)
        logits = self.decoder(torch.cat([z.to(device), cond], 1))
        return np.rint(16.0 * torch.sigmoid(logits).double().cpu().numpy())


def train_cvae(
    generator: GlyphGenerator,
    n_pairs: int = 30_000,
    epochs: int = 40,
    latent: int = 4,
    hidden: int = 512,
    beta: float = 2.0,
    seed: int = 0,
    device: str | torch.device | None = None,
) -> CVAEGenerator:
    """Fit a :class:`CVAEGenerator` to ``n_pairs`` (random prompt, one rendering) pairs of the
    renderer ``generator``: ``epochs`` passes of Adam (lr 2e-3, batch 256) on the loss L (its
    KL term weighted by ``beta``).

    ``device``: where to train (None: :func:`icml25.common.runtime.get_device`, a GPU when one
    is visible); the returned model is on the CPU in eval mode, with ``history`` the mean loss
    per epoch. Randomness (prompts, renderings, weights, batches, ε) comes from ``seed`` only.
    """
    if not isinstance(generator, GlyphGenerator):
        raise TypeError(f"generator must be a GlyphGenerator, got {type(generator).__name__}")
    n_pairs = check_int("n_pairs", n_pairs, 2)
    epochs = check_int("epochs", epochs, 1)
    latent = check_int("latent", latent, 1)
    hidden = check_int("hidden", hidden, 1)
    beta = check_positive("beta", beta)
    seed = check_seed("seed", seed)
    if device is None:
        device = get_device()
    elif isinstance(device, str):
        try:
            device = torch.device(device)
        except RuntimeError as err:
            raise ValueError(f"device must name a torch device, got {device!r}") from err
    elif not isinstance(device, torch.device):
        raise TypeError(
            f"device must be a str, a torch.device or None, got {type(device).__name__}"
        )
    rng = np.random.default_rng(seed)
    prompts = [generator.random_prompt(rng) for _ in range(n_pairs)]
    X = np.concatenate([generator.generate(p, 1, seed=int(rng.integers(2**31))) for p in prompts])
    X = check_images("X", X)
    model = CVAEGenerator(generator.vocab, latent=latent, hidden=hidden, seed=seed).to(device)
    ids = model._ids(prompts).to(device)
    Xt = torch.as_tensor(X, dtype=torch.float32, device=device)
    opt = torch.optim.Adam(model.parameters(), lr=2e-3)
    g = torch.Generator().manual_seed(seed)
    model.train()
    for _ in range(epochs):
        total = 0.0
        for idx in torch.randperm(n_pairs, generator=g).split(256):
            eps = torch.randn(len(idx), latent, generator=g).to(device)
            idx = idx.to(device)
            loss = model._loss(Xt[idx], model._cond(ids[idx]), eps, beta)
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += float(loss.detach()) * len(idx)
        model.history.append(total / n_pairs)
    return model.cpu().eval()
