"""The miniature's world: a word vocabulary, scikit-learn's 8×8 digits and four tasks.

Vocabulary (ids): 0 BOS, 1 ``<img>`` (the image placeholder), 2..11 the digit tokens "0".."9",
then "plus", "minus", "is", "the", "digit" and eight filler words. Every answer is one digit
token, so chance is 1/10. Tasks (``TASKS``), each a fixed template:

* ``"base"``: three filler tokens (words or digits) then the copy sentence "the digit 3 is 3";
  trained with the LM loss on every token, scored on the last one.
* ``"text_reasoning"``: ``a plus b minus c is`` → (a + b − c) mod 10, ``n_operands`` operands,
  each operator drawn from plus / minus.
* ``"perception"``: "the digit <img> is" → d.
* ``"mm_reasoning"``: the operands of ``text_reasoning`` as digit images.

Two *alignment* tasks (``ALIGN_TASKS``; the issue's first fallback, the brief's "many contexts in
which the image token must act as a digit token" and its optional single-step items) are used to
train the VLM, never reported as results:

* ``"image_is"``: "<img> is" → d (pilot B's second recognition context, no "the digit" prefix).
* ``"mm_single"``: one step of ``text_reasoning`` with one operand an image and the other a digit
  token, in either order ("<img> plus 3 is", "7 minus <img> is").

One image is ``n_image_tokens = 4`` placeholders (the patch encoder's four 4×4 patches).
Images are split by image into train / val / test (60 / 20 / 20 %, stratified by digit); the val
and test items are generated once from ``seed`` (``n_test`` per task), so the same model always
gets the same numbers.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import torch

from icml25.common.checks import check_choice, check_index_array, check_int, check_seed

__all__ = [
    "ALIGN_TASKS",
    "ALL_TASKS",
    "IMG",
    "N_IMAGE_TOKENS",
    "SPLITS",
    "TASKS",
    "VOCAB",
    "Batch",
    "TaskSuite",
    "digit_token",
    "make_suite",
]

FILLERS = ("a", "cat", "sees", "and", "we", "then", "red", "on")
VOCAB: tuple[str, ...] = (
    "<bos>",
    "<img>",
    *[str(d) for d in range(10)],
    "plus",
    "minus",
    "is",
    "the",
    "digit",
    *FILLERS,
)
IMG = 1
N_IMAGE_TOKENS = 4
TASKS = ("base", "text_reasoning", "perception", "mm_reasoning")
ALIGN_TASKS = ("image_is", "mm_single")
ALL_TASKS = TASKS + ALIGN_TASKS
SPLITS = ("train", "val", "test")
_ID = {w: i for i, w in enumerate(VOCAB)}


def digit_token(d) -> np.ndarray:
    """Token id(s) of digit(s) ``d`` (an int or an int array of 0..9): ``d + 2``."""
    if isinstance(d, (int, np.integer)) and not isinstance(d, bool):
        d = [d]
        return check_index_array("d", d, 10)[0] + 2
    return check_index_array("d", d, 10, min_size=0) + 2


@dataclass
class Batch:
    """One batch of a task: ``input_ids`` (n, L) int64; ``images`` (n, m, 1, 8, 8) float32 or
    None; ``target_mask`` (n, L) bool (the training targets); ``answer`` (n,) the answer token id;
    ``answer_pos`` (n,) its position (the logits at ``answer_pos − 1`` predict it)."""

    input_ids: torch.Tensor
    images: torch.Tensor | None
    target_mask: torch.Tensor
    answer: torch.Tensor
    answer_pos: torch.Tensor

    def __len__(self) -> int:
        return int(self.input_ids.shape[0])


@dataclass
class TaskSuite:
    """Digits, their split and the fixed evaluation items; build with :func:`make_suite`.

    ``images`` (1797, 1, 8, 8) in [0, 1]; ``labels`` (1797,); ``split_index[s]`` the image
    indices of split s; ``n_operands`` of the reasoning tasks; ``seed``."""

    images: np.ndarray
    labels: np.ndarray
    split_index: dict[str, np.ndarray]
    n_operands: int
    n_test: int
    seed: int
    _fixed: dict = field(default_factory=dict, repr=False)

    @property
    def vocab_size(self) -> int:
        return len(VOCAB)

    def _by_digit(self, split: str) -> list[np.ndarray]:
        idx = self.split_index[split]
        return [idx[self.labels[idx] == d] for d in range(10)]

    def _make(self, task: str, split: str, n: int, rng: np.random.Generator) -> Batch:
        k = self.n_operands
        if task == "base":
            toks = rng.integers(2, len(VOCAB), size=(n, 3))
            toks = np.where(np.isin(toks, [_ID["the"], _ID["digit"], _ID["is"]]), 2, toks)
            d = rng.integers(0, 10, n)
            tail = np.stack(
                [
                    np.full(n, _ID["the"]),
                    np.full(n, _ID["digit"]),
                    digit_token(d),
                    np.full(n, _ID["is"]),
                    digit_token(d),
                ],
                axis=1,
            )
            ids = np.concatenate([np.zeros((n, 1), int), toks, tail], axis=1)
            mask = np.ones_like(ids, dtype=bool)
            mask[:, 0] = False
            return self._pack(ids, None, mask, digit_token(d))
        if task == "perception":
            d = rng.integers(0, 10, n)
            ids = np.array([0, _ID["the"], _ID["digit"], *[IMG] * N_IMAGE_TOKENS, _ID["is"], 0])
            ids = np.tile(ids, (n, 1))
            ids[:, -1] = digit_token(d)
            return self._pack(ids, self._pick(split, d[:, None], rng), None, digit_token(d))
        if task == "image_is":
            d = rng.integers(0, 10, n)
            ids = np.tile(np.array([0, *[IMG] * N_IMAGE_TOKENS, _ID["is"], 0]), (n, 1))
            ids[:, -1] = digit_token(d)
            return self._pack(ids, self._pick(split, d[:, None], rng), None, digit_token(d))
        if task == "mm_single":
            a, b = rng.integers(0, 10, n), rng.integers(0, 10, n)
            op = rng.integers(0, 2, n)
            value = (a + np.where(op == 0, 1, -1) * b) % 10
            first = rng.integers(0, 2, n).astype(bool)  # True: the image is the first operand
            opid = np.where(op == 0, _ID["plus"], _ID["minus"])
            img = np.full((n, N_IMAGE_TOKENS), IMG)
            head = np.concatenate([img, opid[:, None], digit_token(b)[:, None]], axis=1)
            tail = np.concatenate([digit_token(a)[:, None], opid[:, None], img], axis=1)
            body = np.where(first[:, None], head, tail)
            ids = np.concatenate(
                [
                    np.zeros((n, 1), int),
                    body,
                    np.full((n, 1), _ID["is"]),
                    digit_token(value)[:, None],
                ],
                axis=1,
            )
            images = self._pick(split, np.where(first, a, b)[:, None], rng)
            return self._pack(ids, images, None, digit_token(value))
        operands = rng.integers(0, 10, size=(n, k))
        ops = rng.integers(0, 2, size=(n, k - 1))  # 0 plus, 1 minus
        value = operands[:, 0] + (np.where(ops == 0, 1, -1) * operands[:, 1:]).sum(axis=1)
        value = value % 10
        width = 1 if task == "text_reasoning" else N_IMAGE_TOKENS
        cols = [np.zeros((n, 1), int)]
        for j in range(k):
            if j:
                cols.append(np.where(ops[:, j - 1 : j] == 0, _ID["plus"], _ID["minus"]))
            if task == "text_reasoning":
                cols.append(digit_token(operands[:, j : j + 1]))
            else:
                cols.append(np.full((n, width), IMG))
        cols += [np.full((n, 1), _ID["is"]), digit_token(value[:, None])]
        ids = np.concatenate(cols, axis=1)
        images = self._pick(split, operands, rng) if task == "mm_reasoning" else None
        return self._pack(ids, images, None, digit_token(value))

    def _pick(self, split: str, digits: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        pools = self._by_digit(split)
        choice = np.empty(digits.shape, dtype=int)
        for d in range(10):
            where = digits == d
            choice[where] = rng.choice(pools[d], size=int(where.sum()))
        return self.images[choice]  # (n, m, 1, 8, 8)

    @staticmethod
    def _pack(ids, images, mask, answer) -> Batch:
        ids = torch.as_tensor(ids, dtype=torch.long)
        n, length = ids.shape
        if mask is None:
            mask = np.zeros((n, length), dtype=bool)
            mask[:, -1] = True
        return Batch(
            ids,
            None if images is None else torch.as_tensor(images, dtype=torch.float32),
            torch.as_tensor(mask),
            torch.as_tensor(answer, dtype=torch.long),
            torch.full((n,), length - 1, dtype=torch.long),
        )

    def batch(self, task: str, split: str = "train", n: int = 64, seed: int = 0) -> Batch:
        """``n`` items of ``task`` (``TASKS`` or ``ALIGN_TASKS``) from ``split``. Train items are
        drawn fresh from ``seed``; val and test items are the first ``n`` of the fixed ``n_test``
        (``seed`` unused)."""
        task = check_choice("task", task, ALL_TASKS)
        split = check_choice("split", split, SPLITS)
        seed = check_seed("seed", seed)
        if split == "train":
            n = check_int("n", n, 1)
            return self._make(task, split, n, np.random.default_rng([seed, ALL_TASKS.index(task)]))
        n = check_int("n", n, 1, self.n_test)
        key = (task, split)
        if key not in self._fixed:
            rng = np.random.default_rng(
                [self.seed, 1000 + ALL_TASKS.index(task), SPLITS.index(split)]
            )
            self._fixed[key] = self._make(task, split, self.n_test, rng)
        full = self._fixed[key]
        return Batch(*(None if v is None else v[:n] for v in vars(full).values()))


def make_suite(seed: int = 0, n_operands: int = 3, n_test: int = 1000) -> TaskSuite:
    """The digits (``sklearn.datasets.load_digits``, scaled to [0, 1]), split by image
    (stratified, 60 / 20 / 20 %, from ``seed``), and the task generator."""
    from sklearn.datasets import load_digits
    from sklearn.model_selection import train_test_split

    seed = check_seed("seed", seed)
    n_operands = check_int("n_operands", n_operands, 2, 6)
    n_test = check_int("n_test", n_test, 1)
    x, y = load_digits(return_X_y=True)
    images = (x / 16.0).astype(np.float32).reshape(-1, 1, 8, 8)
    idx = np.arange(len(y))
    rs = int(np.random.default_rng(seed).integers(2**31))
    train, rest = train_test_split(idx, test_size=0.4, stratify=y, random_state=rs)
    val, test = train_test_split(rest, test_size=0.5, stratify=y[rest], random_state=rs)
    split_index = {"train": np.sort(train), "val": np.sort(val), "test": np.sort(test)}
    return TaskSuite(images, y.astype(int), split_index, n_operands, n_test, seed)
