"""The title model: the book's :class:`~icml25.common.vlm.TinyVLM` taught to name and caption
movie frames, plus a caption → title text route.

Token sequences (characters of :class:`~icml25.common.lm.CharTokenizer`, BOS 0 first):

* image → title: ``[BOS, @ @ @ @, >, title, .]`` (``@`` = the image placeholder);
* image → caption: ``[BOS, @ @ @ @, #, caption, .]`` (free text about the frame);
* caption → title (the planted text knowledge): ``[BOS, #, caption, >, title, .]``.

``guess`` decodes greedily after ``>``; ``title_logprob`` is Σ log p(title, "." | prompt);
``caption_token_logprobs`` gives the log-probs of the model's own greedy caption's tokens.

Device: the network lives on ``build_title_vlm(..., device=...)`` (default
:func:`icml25.common.runtime.get_device`: a GPU when one is visible); every batch of ids, images
and masks is moved to ``model.device`` and every result comes back to the CPU (NumPy, lists), so
the same code runs on a CPU and on a GPU (a unit test runs it with ``device="cpu"``).
"""

from __future__ import annotations

import numpy as np
import torch

from icml25.common.checks import (
    check_device,
    check_instance,
    check_int,
    check_positive,
    check_seed,
)
from icml25.common.lm import BOS, CharTokenizer
from icml25.common.runtime import get_device
from icml25.common.training import minibatch_training
from icml25.common.vlm import TinyVLM
from icml25.disco.world import ALPHABET, Split, check_frames

__all__ = ["TitleVLM", "build_title_vlm", "train_title_vlm"]

IMG, TITLE, CAP, END = "@", ">", "#", "."
MAX_TITLE = 24
MAX_CAPTION = 48


@torch.no_grad()
def greedy_decode(
    net: TinyVLM, ids: torch.Tensor, images: torch.Tensor | None, max_new: int, end: int
) -> tuple[torch.Tensor, torch.Tensor]:
    """Greedy decoding with a key/value cache: new tokens (B, max_new) and their log-probs.

    ``TinyVLM.generate`` recomputes the whole sequence at every step (no cache), which makes the
    thousands of generations of a chapter run several times slower on one CPU thread; this
    gives the same tokens (a unit test checks it). All rows share one prompt length. After
    ``end`` a row keeps emitting ``end`` (log-prob 0). The outputs live on ``net``'s device."""
    net.eval()
    dev = net.device
    ids = ids.to(dev)
    emb = net.embed(ids, images)
    out = net.lm(inputs_embeds=emb, use_cache=True)
    past, logits = out.cache, out.logits[:, -1]
    b = ids.shape[0]
    toks = torch.full((b, max_new), end, dtype=torch.long, device=dev)
    lps = torch.zeros((b, max_new), device=dev)
    done = torch.zeros(b, dtype=torch.bool, device=dev)
    for t in range(max_new):
        logits[:, net.image_token_id] = -torch.inf
        logp = torch.log_softmax(logits.float(), dim=-1)
        lp, nxt = logp.max(dim=-1)
        toks[:, t] = torch.where(done, end, nxt)
        lps[:, t] = torch.where(done, 0.0, lp)
        done |= nxt == end
        if bool(done.all()) or t == max_new - 1:
            break
        out = net.lm(
            inputs_embeds=net.lm.transformer.wte(toks[:, t : t + 1]),
            cache=past,
            use_cache=True,
        )
        past, logits = out.cache, out.logits[:, -1]
    return toks, lps


class TitleVLM:
    """A title model (see :mod:`icml25.disco.scores`) on a :class:`TinyVLM` ``net``."""

    def __init__(self, net: TinyVLM, tokenizer: CharTokenizer, batch_size: int = 512) -> None:
        self.net = check_instance("net", net, TinyVLM)
        self.tok = check_instance("tokenizer", tokenizer, CharTokenizer)
        self.batch_size = check_int("batch_size", batch_size)
        self.n_img = net.n_image_tokens

    @property
    def device(self) -> torch.device:
        """The device of the network (where every batch is sent)."""
        return self.net.device

    def to(self, device: str | torch.device) -> TitleVLM:
        """Move the network to ``device`` (in place); returns the model."""
        self.net.to(_check_device(device))
        return self

    # ------------------------------------------------------------------ encoding
    def _ids(self, text: str) -> list[int]:
        return self.tok.encode(text)

    def _check_texts(self, name: str, texts: object, prompt_len: int) -> list[str]:
        """``texts`` as a list of non-empty strings in the tokenizer's alphabet that fit, after a
        prompt of ``prompt_len`` tokens and the end token, into ``n_positions``; errors name
        ``name``."""
        if isinstance(texts, str) or not isinstance(texts, (list, tuple)):
            raise TypeError(f"{name} must be a list of strings, got {type(texts).__name__}")
        if not all(isinstance(t, str) for t in texts):
            raise TypeError(f"{name} must be a list of strings")
        room = self.net.n_positions - prompt_len - 1
        known = set(ALPHABET)  # the markers (@ > # .) are not text
        for i, t in enumerate(texts):
            if not t.strip():
                raise ValueError(f"{name}[{i}] is empty: every entry needs at least one character")
            missing = sorted(set(t) - known)
            if missing:
                raise ValueError(f"{name}[{i}] has characters outside the alphabet: {missing}")
            if len(t) > room:
                raise ValueError(
                    f"{name}[{i}] is {len(t)} characters long; at most {room} fit into "
                    f"n_positions={self.net.n_positions}"
                )
        return list(texts)

    def _image_prompt(self, marker: str) -> list[int]:
        return [BOS] + self._ids(IMG * self.n_img + marker)

    def _text_prompt(self, caption: str) -> list[int]:
        return [BOS] + self._ids(CAP + caption + TITLE)

    @staticmethod
    def _images(frames: np.ndarray) -> torch.Tensor:
        """(N, 32, 32, 3) -> (N, 1, 3, 32, 32)."""
        return torch.from_numpy(np.ascontiguousarray(frames.transpose(0, 3, 1, 2)))[:, None]

    def _pad(self, rows: list[list[int]]) -> tuple[torch.Tensor, torch.Tensor]:
        lengths = torch.tensor([len(r) for r in rows])
        ids = torch.zeros((len(rows), int(lengths.max())), dtype=torch.long)
        for i, r in enumerate(rows):
            ids[i, : len(r)] = torch.tensor(r)
        return ids, lengths

    def _decode(self, out: torch.Tensor) -> list[str]:
        end = self.tok.index[END]
        texts = []
        for row in out.tolist():
            row = row[: row.index(end)] if end in row else row
            texts.append(self.tok.decode(row))
        return texts

    # ------------------------------------------------------------------ the interface
    @torch.no_grad()
    def guess(self, frames: np.ndarray | None, captions: list[str] | None = None) -> list[str]:
        """Greedy free-form title per frame (image route) or per caption (``frames=None``)."""
        end = self.tok.index[END]
        out = []
        if frames is None:
            if not isinstance(captions, (list, tuple)) or not captions:
                raise ValueError("captions must be a non-empty list when frames is None")
            captions = self._check_texts("captions", captions, 2 + MAX_TITLE)
            rows = [self._text_prompt(c) for c in captions]
            texts = [""] * len(rows)
            for n in sorted({len(r) for r in rows}):  # one cached batch per prompt length
                which = [i for i, r in enumerate(rows) if len(r) == n]
                for s in range(0, len(which), self.batch_size):
                    part = which[s : s + self.batch_size]
                    ids = torch.tensor([rows[i] for i in part])
                    gen, _ = greedy_decode(self.net, ids, None, MAX_TITLE, end)
                    for i, t in zip(part, self._decode(gen), strict=True):
                        texts[i] = t
            return texts
        frames = check_frames("frames", frames)
        prompt = torch.tensor(self._image_prompt(TITLE))
        for s in range(0, len(frames), self.batch_size):
            img = self._images(frames[s : s + self.batch_size])
            ids = prompt.repeat(len(img), 1)
            out += self._decode(greedy_decode(self.net, ids, img, MAX_TITLE, end)[0])
        return out

    @torch.no_grad()
    def title_logprob(self, frames: np.ndarray, titles: list[str]) -> np.ndarray:
        """log p(title + "." | frame), summed over the title's characters; (N,)."""
        frames = check_frames("frames", frames)
        prompt = self._image_prompt(TITLE)
        titles = self._check_texts("titles", titles, len(prompt))
        if len(titles) != len(frames):
            raise ValueError(f"titles must hold {len(frames)} strings, one per frame")
        self.net.eval()
        out = []
        for s in range(0, len(frames), self.batch_size):
            rows = [prompt + self._ids(t + END) for t in titles[s : s + self.batch_size]]
            ids, lengths = self._pad(rows)
            mask = torch.arange(ids.shape[1])[None] < lengths[:, None]
            mask[:, : len(prompt)] = False
            img = self._images(frames[s : s + self.batch_size])
            out.append(self.net.sequence_logprob(ids, img, mask).cpu().numpy())
        return np.concatenate(out)

    @torch.no_grad()
    def caption_frames(self, frames: np.ndarray) -> list[str]:
        """The model's greedy caption of each frame (free text)."""
        frames = check_frames("frames", frames)
        end = self.tok.index[END]
        prompt = torch.tensor(self._image_prompt(CAP))
        out = []
        for s in range(0, len(frames), self.batch_size):
            img = self._images(frames[s : s + self.batch_size])
            gen, _ = greedy_decode(self.net, prompt.repeat(len(img), 1), img, MAX_CAPTION, end)
            out += self._decode(gen)
        return out

    @torch.no_grad()
    def caption_token_logprobs(self, frames: np.ndarray) -> list[np.ndarray]:
        """Per frame, the log-probs of the tokens of its own greedy caption (up to the ".")."""
        frames = check_frames("frames", frames)
        end = self.tok.index[END]
        prompt = torch.tensor(self._image_prompt(CAP))
        res: list[np.ndarray] = []
        for s in range(0, len(frames), self.batch_size):
            img = self._images(frames[s : s + self.batch_size])
            gen, tok = greedy_decode(self.net, prompt.repeat(len(img), 1), img, MAX_CAPTION, end)
            for row, lp in zip(gen.tolist(), tok.cpu().numpy(), strict=True):
                n = row.index(end) + 1 if end in row else len(row)
                res.append(lp[:n])
        return res


def _tokenizer() -> CharTokenizer:
    return CharTokenizer(ALPHABET + IMG + TITLE + CAP + END)


def _check_device(device: object) -> torch.device:
    """``device`` (a ``torch.device`` or a string such as ``"cpu"``, ``"cuda"``) as a device."""
    return check_device("device", device, allow_none=False)


def build_title_vlm(
    split: Split,
    seed: int = 0,
    cnn_width: int = 32,
    n_embd: int = 64,
    device: str | torch.device | None = None,
) -> TitleVLM:
    """An untrained title model: ``TinyVLM`` (cnn encoder, 4 image tokens, 2 layers) over the
    characters of titles and captions; ``cnn_width`` and ``n_embd`` set its width. The network
    is initialised on the CPU (the same weights everywhere for one ``seed``), then moved to
    ``device`` (default :func:`~icml25.common.runtime.get_device`)."""
    check_instance("split", split, Split)
    dev = get_device() if device is None else _check_device(device)
    seed = check_seed("seed", seed)
    cnn_width, n_embd = check_int("cnn_width", cnn_width), check_int("n_embd", n_embd, 4)
    if n_embd % 4:
        raise ValueError(f"n_embd must be divisible by 4 (the number of heads), got {n_embd}")
    tok = _tokenizer()
    net = TinyVLM(
        tok.vocab_size,
        tok.index[IMG],
        image_shape=(3, 32, 32),
        encoder="cnn",
        n_image_tokens=4,
        n_layer=2,
        n_embd=n_embd,
        n_head=4,
        n_positions=96,
        seed=seed,
        cnn_width=cnn_width,
    )
    return TitleVLM(net.to(dev), tok)


def _training_rows(model: TitleVLM, split: Split):
    """(ids list, target start, frame index or -1) for every training sequence."""
    rows = []
    tr = split.train
    for n in range(len(tr)):
        title = split.movies[int(tr.movie[n])].title
        for marker, target in ((TITLE, title), (CAP, tr.caption[n])):
            p = model._image_prompt(marker)
            rows.append((p + model._ids(target + END), len(p), n))
    for cap, title in split.text_pairs:
        p = model._text_prompt(cap)
        rows.append((p + model._ids(title + END), len(p), -1))
    return rows


def train_title_vlm(
    model: TitleVLM,
    split: Split,
    epochs: int = 3,
    lr: float = 3e-3,
    seed: int = 0,
    batch_size: int = 32,
    progress: bool = True,
) -> dict:
    """Train on the split's training sequences (image → title, image → caption, caption → title)
    with AdamW, loss = mean next-token NLL of the targets. Returns ``{"loss": batch losses,
    "n_sequences": ...}``. Only ``split.train`` is read: clean movies are never seen. The
    training tensors are sent once to ``model.device``; batch indices are drawn on the CPU
    (``seed``), so a GPU run sees the same batches."""
    check_instance("model", model, TitleVLM)
    check_instance("split", split, Split)
    epochs, batch_size = check_int("epochs", epochs), check_int("batch_size", batch_size)
    lr = check_positive("lr", lr)
    g = torch.Generator().manual_seed(check_seed("seed", seed))
    rows = _training_rows(model, split)
    ids, lengths = model._pad([r[0] for r in rows])
    pos = torch.arange(ids.shape[1])[None]
    mask = (pos < lengths[:, None]) & (pos >= torch.tensor([r[1] for r in rows])[:, None])
    frame_of = torch.tensor([r[2] for r in rows])
    imgs = model._images(split.train.frames)
    dev = model.device
    ids, mask, frame_of, imgs = ids.to(dev), mask.to(dev), frame_of.to(dev), imgs.to(dev)
    blank = torch.zeros_like(imgs[:1])
    net = model.net
    opt = torch.optim.AdamW(net.parameters(), lr=lr, weight_decay=0.0)

    def step(idx: torch.Tensor) -> torch.Tensor:
        idx = idx.to(dev)
        f = frame_of[idx]
        img = torch.where((f >= 0)[:, None, None, None, None], imgs[f.clamp(min=0)], blank)
        lp = net.sequence_logprob(ids[idx], img, mask[idx])
        return -lp.sum() / mask[idx].sum()

    net.train()
    losses = minibatch_training(net, opt, step, len(rows), epochs, batch_size, g, progress)
    return {"loss": losses, "n_sequences": len(rows)}
