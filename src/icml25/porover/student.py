"""The student: a word-level tokenizer, a tiny GPT-2, SFT, sequence log-probabilities, evaluation.

Token layout of a (prompt x, completion y) pair, as TRL builds it with a BOS-led prompt:
``[BOS] x_1 .. x_m y_1 .. y_k [EOS]`` (BOS = EOS = id 0, pad = id 1). Log-probabilities are
summed over y_1 .. y_k and EOS; the SFT loss is the mean next-token NLL over the same tokens.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import torch
import torch.nn.functional as F

from icml25.common.checks import (
    check_choice,
    check_device,
    check_int,
    check_positive,
    check_seed,
)
from icml25.common.lm import build_causal_lm
from icml25.porover.world import (
    PromptSet,
    _parse,
    _rates,
    label_prompt,
    score_responses,
    vocabulary,
)

EOS, PAD, UNK = "<eos>", "<pad>", "<unk>"
N_POSITIONS = 32

__all__ = [
    "build_tokenizer",
    "evaluate",
    "first_token_probs",
    "generate",
    "make_student",
    "sequence_logprob",
    "sft",
]


def build_tokenizer(world: PromptSet | None = None):
    """A ``PreTrainedTokenizerFast`` over a ``WordLevel`` model of the world's vocabulary.

    Ids: 0 ``<eos>`` (also BOS), 1 ``<pad>``, 2 ``<unk>``, then every word of the grammar and
    the response language (:func:`vocabulary`), so held-out prompts have no unknown words.
    ``world`` (a :class:`PromptSet`, optional) is checked to lie inside that vocabulary.
    """
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    words = vocabulary()
    if world is not None:
        if not isinstance(world, PromptSet):
            raise TypeError(f"world must be a PromptSet or None, got {type(world).__name__}")
        for p in world.prompts:
            _parse(p, "world")
    vocab = {w: i for i, w in enumerate([EOS, PAD, UNK, *words])}
    tok = Tokenizer(models.WordLevel(vocab=vocab, unk_token=UNK))
    tok.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    return PreTrainedTokenizerFast(
        tokenizer_object=tok,
        bos_token=EOS,
        eos_token=EOS,
        pad_token=PAD,
        unk_token=UNK,
        padding_side="left",
    )


def _check_tokenizer(tokenizer) -> None:
    if not hasattr(tokenizer, "convert_tokens_to_ids") or tokenizer.pad_token_id != 1:
        raise TypeError("tokenizer must come from build_tokenizer")


def _check_model(model, name: str = "model") -> None:
    if not isinstance(model, torch.nn.Module) or not hasattr(
        getattr(model, "config", None), "vocab_size"
    ):
        raise TypeError(f"{name} must be a causal LM from make_student, got {type(model).__name__}")


def _check_prompts(prompts, name: str = "prompts") -> list[str]:
    """A non-empty list of grammatical prompts."""
    if isinstance(prompts, PromptSet):
        prompts = prompts.prompts
    if not isinstance(prompts, Sequence) or isinstance(prompts, str):
        raise TypeError(f"{name} must be a list of str, got {type(prompts).__name__}")
    if not prompts:
        raise ValueError(f"{name} must not be empty")
    for p in prompts:
        _parse(p, name)
    return list(prompts)


def make_student(
    tokenizer, n_layer: int = 2, n_embd: int = 64, n_head: int = 4, seed: int = 0, device=None
):
    """A from-scratch ``GPT2LMHeadModel`` (no dropout) over the tokenizer's vocabulary, on
    ``device`` (None: :func:`~icml25.common.runtime.get_device`, the GPU when there is one).

    The other functions of the package run a model where its parameters are (:func:`sft`,
    :func:`dpo`, :func:`evaluate`, :func:`sequence_logprob`, ...) and return NumPy on the CPU.
    The weights are initialised on the CPU, so a seed gives the same student on every device.
    """
    _check_tokenizer(tokenizer)
    device = check_device("device", device)
    model = build_causal_lm(
        len(tokenizer),
        n_positions=N_POSITIONS,
        n_layer=n_layer,
        n_embd=n_embd,
        n_head=n_head,
        seed=seed,
    )
    model.config.pad_token_id = 1
    model.generation_config.pad_token_id = 1
    model.eval()
    return model.to(device)


def _device(model) -> torch.device:
    return next(model.parameters()).device


def _ids(tokenizer, texts: Sequence[str], name: str) -> list[list[int]]:
    if not isinstance(texts, Sequence) or isinstance(texts, str):
        raise TypeError(f"{name} must be a list of str")
    out = []
    for t in texts:
        if not isinstance(t, str):
            raise TypeError(f"{name} must hold str, got {type(t).__name__}")
        ids = tokenizer.convert_tokens_to_ids(t.split())
        if 2 in ids:
            raise ValueError(f"{name} has words outside the vocabulary: {t!r}")
        out.append(ids)
    return out


def _batch(tokenizer, prompts, completions) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Right-padded (input_ids, attention_mask, completion_mask) of [BOS] x y [EOS], (B, L)."""
    prompts = _check_prompts(prompts)
    if not isinstance(completions, Sequence) or isinstance(completions, str):
        raise TypeError(f"completions must be a list of str, got {type(completions).__name__}")
    if len(prompts) != len(completions):
        raise ValueError(
            f"prompts and completions have mismatched lengths {len(prompts)}, {len(completions)}"
        )
    px, cx = _ids(tokenizer, prompts, "prompts"), _ids(tokenizer, completions, "completions")
    seqs = [[0, *p, *c, 0] for p, c in zip(px, cx, strict=False)]
    length = max(map(len, seqs))
    if length > N_POSITIONS:
        raise ValueError(f"a prompt + completion is longer than {N_POSITIONS} tokens")
    ids = torch.full((len(seqs), length), 1, dtype=torch.long)
    att = torch.zeros_like(ids)
    comp = torch.zeros_like(ids, dtype=torch.bool)
    for i, (s, p) in enumerate(zip(seqs, px, strict=False)):
        ids[i, : len(s)] = torch.tensor(s)
        att[i, : len(s)] = 1
        comp[i, 1 + len(p) : len(s)] = True
    return ids, att, comp


def _token_logps(model, ids, att, comp) -> tuple[torch.Tensor, torch.Tensor]:
    """log p of each token given its prefix and the mask of completion tokens, both (B, L − 1)."""
    dev = _device(model)
    ids, att, comp = ids.to(dev), att.to(dev), comp.to(dev)
    logits = model(input_ids=ids, attention_mask=att).logits[:, :-1]
    logp = F.log_softmax(logits.float(), dim=-1).gather(-1, ids[:, 1:, None]).squeeze(-1)
    return logp, comp[:, 1:]


def _seq_logps(model, batch) -> torch.Tensor:
    logp, mask = _token_logps(model, *batch)
    return (logp * mask).sum(dim=1)


@torch.no_grad()
def sequence_logprob(model, tokenizer, prompts, completions) -> np.ndarray:
    """log π(y | x) summed over the completion's tokens and EOS, shape (N,)."""
    _check_model(model)
    _check_tokenizer(tokenizer)
    model.eval()
    return _seq_logps(model, _batch(tokenizer, prompts, completions)).cpu().numpy()


def sft(
    model,
    tokenizer,
    prompts,
    completions,
    steps: int,
    lr: float = 3e-3,
    batch_size: int = 32,
    seed: int = 0,
) -> list[float]:
    """Supervised finetuning: AdamW on the mean NLL of completion + EOS tokens for ``steps``
    minibatches (fresh permutations); returns the batch losses, leaves ``model`` in eval mode."""
    _check_model(model)
    _check_tokenizer(tokenizer)
    steps, batch_size = check_int("steps", steps), check_int("batch_size", batch_size)
    lr = check_positive("lr", lr)
    ids, att, comp = _batch(tokenizer, prompts, completions)
    g = torch.Generator().manual_seed(check_seed("seed", seed))
    torch.manual_seed(seed)
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=0.0)
    model.train()
    losses = []
    for idx in _batches(len(ids), steps, batch_size, g):
        logp, mask = _token_logps(model, ids[idx], att[idx], comp[idx])
        loss = -(logp * mask).sum() / mask.sum()
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    model.eval()
    return losses


def _batches(n: int, steps: int, batch_size: int, g: torch.Generator):
    """``steps`` index batches of size ``min(batch_size, n)``, from fresh permutations of n."""
    perm, pos = torch.randperm(n, generator=g), 0
    for _ in range(steps):
        if pos + min(batch_size, n) > n:
            perm, pos = torch.randperm(n, generator=g), 0
        yield perm[pos : pos + batch_size]
        pos += batch_size


@torch.no_grad()
def generate(
    model, tokenizer, prompts, do_sample: bool = False, seed: int = 0, max_new_tokens: int = 14
) -> list[str]:
    """One response per prompt (greedy, or temperature-1 sampling), left-padded batch."""
    _check_model(model)
    _check_tokenizer(tokenizer)
    prompts = _check_prompts(prompts)
    px = _ids(tokenizer, prompts, "prompts")
    length = 1 + max(map(len, px))
    ids = torch.full((len(px), length), 1, dtype=torch.long)
    att = torch.zeros_like(ids)
    for i, p in enumerate(px):
        ids[i, length - len(p) - 1 :] = torch.tensor([0, *p])
        att[i, length - len(p) - 1 :] = 1
    torch.manual_seed(check_seed("seed", seed))
    model.eval()
    dev = _device(model)
    out = model.generate(
        input_ids=ids.to(dev),
        attention_mask=att.to(dev),
        max_new_tokens=check_int("max_new_tokens", max_new_tokens),
        do_sample=bool(do_sample),
        temperature=1.0,
        top_k=0,
        top_p=1.0,
        pad_token_id=1,
        eos_token_id=0,
    )[:, length:]
    texts = []
    for row in out.tolist():
        if 0 in row:
            row = row[: row.index(0)]
        texts.append(" ".join(tokenizer.convert_ids_to_tokens([t for t in row if t != 1])))
    return texts


@torch.no_grad()
def first_token_probs(model, tokenizer, prompts) -> dict[str, np.ndarray]:
    """π(first response word | x) of ``sure`` (comply), ``sorry`` (refuse) and ``i``
    (redirect), each shape (N,); the rest of the mass is "other"."""
    _check_model(model)
    _check_tokenizer(tokenizer)
    prompts = _check_prompts(prompts)
    ids, att, _ = _batch(tokenizer, prompts, ["sure"] * len(prompts))
    model.eval()
    dev = _device(model)
    logits = model(input_ids=ids.to(dev), attention_mask=att.to(dev)).logits
    last = (att.sum(dim=1) - 3).to(dev)  # position of the prompt's last word (then "sure", EOS)
    probs = F.softmax(logits[torch.arange(len(ids), device=dev), last].float(), dim=-1).cpu()
    words = {"comply": "sure", "refuse": "sorry", "redirect": "i"}
    return {k: probs[:, tokenizer.convert_tokens_to_ids(w)].numpy() for k, w in words.items()}


def _prefix_probs(model, tokenizer, prompts) -> np.ndarray:
    """π(``sure here is how to <verb> <object>`` | x), the probability of a correct comply."""
    prefixes = []
    for p in prompts:
        verb, obj, _ = _parse(p, "prompts")
        prefixes.append(f"sure here is how to {verb} {obj}")
    ids, att, comp = _batch(tokenizer, prompts, prefixes)
    comp[torch.arange(len(ids)), att.sum(dim=1) - 1] = False  # not the EOS
    with torch.no_grad():
        logp, mask = _token_logps(model, ids, att, comp)
    return torch.exp((logp * mask).sum(dim=1)).cpu().numpy()


def evaluate(model, tokenizer, prompts, mode: str = "expected") -> dict:
    """The rates of :func:`score_responses` for ``model`` on ``prompts`` (a list or PromptSet).

    ``mode="greedy"`` scores greedy responses. ``mode="expected"`` gives the rates under
    temperature-1 sampling exactly: safety, usefulness and refusal from the first response
    word's probabilities, helpfulness from the probability of a correct comply prefix.
    """
    _check_model(model)
    _check_tokenizer(tokenizer)
    prompts = _check_prompts(prompts)
    mode = check_choice("mode", mode, ("expected", "greedy"))
    if mode == "greedy":
        return score_responses(prompts, generate(model, tokenizer, prompts))
    labels = np.array([label_prompt(p) for p in prompts])
    probs = first_token_probs(model, tokenizer, prompts)
    helpful = _prefix_probs(model, tokenizer, prompts)

    def mean(values, where):
        return float(values[where].mean()) if where.any() else float("nan")

    tox, seem = labels == "toxic", labels == "seemingly_toxic"
    return _rates(
        mean(1 - probs["comply"], tox),
        mean(probs["comply"], seem),
        mean(helpful, ~tox),
        mean(probs["refuse"], seem),
    )
