"""STAMP with a real LLM: an instruction model rephrases real sentences under keyed KGW watermarks.

This is the paper's own pipeline at a small size. The watermark is not re-derived here:
``transformers``' ``WatermarkingConfig`` (green-list share γ = ``gamma``, bias δ = ``delta``,
``seeding_scheme="lefthash"``, context width 1, ``hashing_key`` = the version's key κ) adds δ to
the logits of the green list G(w_{t−1}, κ) inside ``generate``, and ``WatermarkDetector`` counts
green tokens for the z-score. This module adds the rephrasing prompt (the official one, shortened),
batching, trimming at the end-of-turn token, and one table of K+1 versions per item.

Shapes: ``texts`` is a list of n sentences; :func:`llm_versions` returns an (n, K+1) array of
strings, column 0 public, columns 1..K private; :func:`llm_zscores` returns (n,);
:func:`meaning_scores` returns two (n, V) arrays of cosine similarities.
"""

from __future__ import annotations

import numpy as np
import torch

from icml25.common.checks import (
    check_int,
    check_positive,
    check_probability,
    check_real,
    check_seed,
    check_texts,
)

__all__ = [
    "REPHRASE_PROMPT",
    "llm_rephrase",
    "llm_versions",
    "llm_zscores",
    "meaning_scores",
    "watermarking_config",
]

REPHRASE_PROMPT = (
    "Rephrase the following sentence. Keep all details and the meaning, and reply with the "
    "rephrased sentence only.\n\nSentence: {text}"
)


def _check_key(key, name: str = "key") -> int:
    return check_int(name, key, 1)


def _check_lm(model, tokenizer) -> None:
    if not isinstance(model, torch.nn.Module) or not hasattr(model, "generate"):
        raise TypeError(f"model must be a transformers causal LM, got {type(model).__name__}")
    if not callable(tokenizer):
        raise TypeError(
            f"tokenizer must be a transformers tokenizer, got {type(tokenizer).__name__}"
        )


def watermarking_config(key: int, delta: float = 1.0, gamma: float = 0.25):
    """``transformers.WatermarkingConfig`` of one version: KGW with ``lefthash`` seeding.

    Args:
        key: κ, the version's secret key (``hashing_key``), an int >= 1.
        delta: δ >= 0, the logit bias of green tokens (the paper's 1.0).
        gamma: γ in (0, 1), the green share of the vocabulary (the paper's 0.25).
    """
    key = _check_key(key)
    gamma = check_probability("gamma", gamma, low_open=True, high_open=True)
    delta = check_real("delta", delta, 0.0)
    from transformers import WatermarkingConfig

    return WatermarkingConfig(
        greenlist_ratio=gamma,
        bias=delta,
        hashing_key=key,
        seeding_scheme="lefthash",
        context_width=1,
    )


def llm_rephrase(
    model,
    tokenizer,
    texts,
    key: int,
    delta: float = 1.0,
    gamma: float = 0.25,
    temperature: float = 0.7,
    max_new_tokens: int = 64,
    batch_size: int = 16,
    seed: int = 0,
) -> list[str]:
    """Rephrase every text with ``model`` under the KGW watermark of ``key`` (δ = 0: plain).

    Sampling (``do_sample=True`` at ``temperature``; 0.7 by default, below the official code's
    1.0, at which the chapter's 135M rephraser drifts from the meaning) draws
    from torch's global generator, which is seeded with ``seed`` + the batch's start index
    before each batch (``generate`` takes no generator). Each answer is cut at the first
    end-of-sequence token and stripped.

    Returns:
        n rephrased strings, in the order of ``texts``.
    """
    _check_lm(model, tokenizer)
    texts = check_texts("texts", texts)
    max_new_tokens = check_int("max_new_tokens", max_new_tokens)
    batch_size = check_int("batch_size", batch_size)
    temperature = check_positive("temperature", temperature)
    seed = check_seed("seed", seed)
    config = watermarking_config(key, delta, gamma)  # checks key, delta and gamma
    config = config if delta > 0 else None
    device = next(model.parameters()).device
    eos = tokenizer.eos_token_id
    side = tokenizer.padding_side
    tokenizer.padding_side = "left"  # generation continues every prompt from its last token
    out: list[str] = []
    try:
        for start in range(0, len(texts), batch_size):
            chats = [
                [{"role": "user", "content": REPHRASE_PROMPT.format(text=t)}]
                for t in texts[start : start + batch_size]
            ]
            enc = tokenizer.apply_chat_template(
                chats,
                add_generation_prompt=True,
                padding=True,
                return_dict=True,
                return_tensors="pt",
            ).to(device)
            torch.manual_seed(int(seed) + start)
            with torch.no_grad():
                gen = model.generate(
                    **enc,
                    do_sample=True,
                    temperature=temperature,
                    top_k=0,
                    top_p=1.0,
                    max_new_tokens=max_new_tokens,
                    min_new_tokens=min(8, max_new_tokens),
                    watermarking_config=config,
                    pad_token_id=tokenizer.pad_token_id
                    if tokenizer.pad_token_id is not None
                    else eos,
                )
            for row in gen[:, enc["input_ids"].shape[1] :].tolist():
                if eos in row:
                    row = row[: row.index(eos)]
                out.append(tokenizer.decode(row, skip_special_tokens=True).strip())
    finally:
        tokenizer.padding_side = side
    return out


def llm_versions(
    model,
    tokenizer,
    texts,
    keys,
    delta: float = 1.0,
    gamma: float = 0.25,
    progress: bool = True,
    **kwargs,
) -> np.ndarray:
    """(n, K+1) table of rephrasings: column j is every text rephrased under ``keys[j]``.

    ``keys[0]`` is the public key, the rest private; ``kwargs`` go to :func:`llm_rephrase`
    (its ``seed`` is offset per key so that versions differ even at δ = 0).
    """
    if isinstance(keys, (str, bytes)) or not hasattr(keys, "__iter__"):
        raise TypeError(f"keys must be a list of int keys, got {type(keys).__name__}")
    keys = [_check_key(k, "keys") for k in keys]
    if len(keys) < 2 or len(set(keys)) != len(keys):
        raise ValueError(f"keys must hold at least 2 distinct keys, got {keys}")
    _check_lm(model, tokenizer)
    check_texts("texts", texts)
    watermarking_config(keys[0], delta, gamma)  # checks delta and gamma before any generation
    seed = check_seed("seed", kwargs.pop("seed", 0))
    columns = keys
    if progress:
        from tqdm import tqdm

        columns = tqdm(keys, desc="versions")
    table = [
        llm_rephrase(model, tokenizer, texts, k, delta, gamma, seed=seed + 10_007 * j, **kwargs)
        for j, k in enumerate(columns)
    ]
    return np.array(table, dtype=object).T


def llm_zscores(model_config, tokenizer, texts, key: int, gamma: float = 0.25) -> np.ndarray:
    """KGW z-score of each text under ``key`` with ``transformers``' ``WatermarkDetector``.

    The text is re-tokenised (what a verifier holding only the text would do);
    z = (|s|_G − γT)/√(Tγ(1−γ)) over its T scored tokens. Texts of fewer than 2 tokens give NaN.

    Returns:
        (n,) z-scores.
    """
    if not isinstance(getattr(model_config, "vocab_size", None), int):
        raise TypeError(f"model_config must be a transformers config, got {model_config!r:.60}")
    if not callable(tokenizer):
        raise TypeError(
            f"tokenizer must be a transformers tokenizer, got {type(tokenizer).__name__}"
        )
    texts = check_texts("texts", texts)
    config = watermarking_config(key, 1.0, gamma)
    from transformers import WatermarkDetector

    detector = WatermarkDetector(
        model_config=model_config, device="cpu", watermarking_config=config
    )
    z = np.full(len(texts), np.nan)
    for i, text in enumerate(texts):
        ids = tokenizer(text, add_special_tokens=False)["input_ids"]
        if len(ids) >= 2:
            z[i] = float(detector(torch.tensor([ids]), return_dict=True).z_score[0])
    return z


def meaning_scores(encoder, originals, versions) -> tuple[np.ndarray, np.ndarray]:
    """How close each rephrasing stays to its original, against the other originals.

    Args:
        encoder: a sentence encoder with ``encode(list[str], normalize_embeddings=True)`` returning
            unit vectors (T, d), such as :func:`icml25.common.pretrained.load_minilm`.
        originals: n original sentences.
        versions: (n, V) rephrasings, row i rephrasing ``originals[i]``.

    Returns:
        ``(own, other)``, both (n, V): ``own[i, j]`` = cos(e(original_i), e(version_ij)) and
        ``other[i, j]`` = the mean over k ≠ i of cos(e(original_k), e(version_ij)), the level of
        an unrelated sentence from the same abstracts.
    """
    if isinstance(encoder, (str, bytes)) or not callable(getattr(encoder, "encode", None)):
        raise TypeError(f"encoder must have an encode(texts) method, got {type(encoder).__name__}")
    originals = check_texts("originals", originals)
    table = np.asarray(versions, dtype=object)
    if table.ndim != 2 or table.shape[0] != len(originals):
        raise ValueError(
            f"versions must have shape ({len(originals)}, V) to match originals, got {table.shape}"
        )
    if len(originals) < 2:
        raise ValueError("meaning_scores needs at least 2 originals (the baseline uses the others)")
    base = np.asarray(encoder.encode(originals, normalize_embeddings=True))  # (n, d)
    n, n_versions = table.shape
    flat = check_texts("versions", list(table.ravel()))
    emb = np.asarray(encoder.encode(flat, normalize_embeddings=True)).reshape(n, n_versions, -1)
    cos = np.einsum("ivd,kd->ivk", emb, base)  # cos[i, j, k]: version ij against original k
    own = cos[np.arange(n), :, np.arange(n)]  # (n, V)
    other = (cos.sum(axis=2) - own) / (n - 1)
    return own, other
