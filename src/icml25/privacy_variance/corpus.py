"""The canary corpus of the privacy-variance chapter: records of a sparse random Markov chain with
planted secrets (Carlini et al.'s canaries), and its check."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from icml25.common.checks import check_index_array, check_instance, check_int, check_seed

__all__ = ["Corpus", "make_corpus"]

N_DIGITS = 10  #: tokens 0-9 are digits; secrets are digit strings
SECRET_LEN = 4


@dataclass
class Corpus:
    """Training records with planted canaries, held-out records, and the secrets.

    Attributes:
        train: (n_records, length) int64 token rows; canary rows are mixed in at random places.
        test: (n_test, length) rows from the same Markov chain, without canaries.
        prefixes: (n_secrets, length - 4) each secret's own prefix ("my number is ..."), letters
            only, distinct in their last 4 tokens (the context of the book's LM).
        secrets: (n_secrets, 4) the secret digit strings: inserted ones first, then controls.
        reps: (n_secrets,) how often each secret is inserted (0: a never-inserted control); in
            a corpus made with ``insert=False`` no secret is in ``train`` at all.
        vocab: vocabulary size (digits 0-9, then letters).
    """

    train: np.ndarray
    test: np.ndarray
    prefixes: np.ndarray
    secrets: np.ndarray
    reps: np.ndarray
    vocab: int


def _check_corpus(corpus: object) -> Corpus:
    """A :class:`Corpus` whose records are (n, L) token ids below its vocabulary, L >= 2."""
    check_instance("corpus", corpus, Corpus)
    vocab = check_int("corpus.vocab", corpus.vocab, N_DIGITS + 2)
    for name in ("train", "test"):
        rows = check_index_array(f"corpus.{name}", getattr(corpus, name), vocab, ndim=2)
        if rows.shape[1] < 2:
            raise ValueError(f"corpus.{name} rows must hold at least 2 tokens")
    return corpus


def make_corpus(
    n_records: int = 4096,
    reps: tuple[int, ...] = (1, 4, 16),
    n_per_rep: int = 20,
    n_controls: int = 20,
    seed: int = 0,
    length: int = 12,
    vocab: int = 16,
    n_test: int = 1024,
    insert: bool = True,
) -> Corpus:
    """Synthetic records from a sparse random Markov chain, plus canaries.

    Background rows follow a Markov chain over ``vocab`` tokens whose transition rows are
    Dirichlet(0.3). A canary is ``prefix + secret``: its own prefix of ``length - 4`` letters
    and 4 random digits; ``n_per_rep`` distinct secrets are inserted ``r`` times each for every
    ``r`` in ``reps``, replacing background rows. ``n_controls`` further secrets (with their
    prefixes) are never inserted. ``insert=False`` makes the null corpus: the same background,
    test rows, prefixes and secrets, with background rows where the canaries would be.
    """
    n_records = check_int("n_records", n_records, 2)
    n_per_rep = check_int("n_per_rep", n_per_rep)
    n_controls = check_int("n_controls", n_controls)
    length = check_int("length", length, SECRET_LEN + 2)
    vocab = check_int("vocab", vocab, N_DIGITS + 2)
    if (
        not isinstance(reps, (tuple, list))
        or not reps
        or any(isinstance(r, bool) or not isinstance(r, int) or r < 1 for r in reps)
    ):
        raise ValueError(f"reps must be a non-empty tuple of ints >= 1, got {reps!r}")
    n_canary_rows = n_per_rep * sum(reps)
    if n_canary_rows >= n_records:
        raise ValueError(
            f"n_per_rep * sum(reps) = {n_canary_rows} canary rows do not fit in "
            f"n_records={n_records}"
        )
    if n_per_rep * len(reps) + n_controls > N_DIGITS**SECRET_LEN:
        raise ValueError(
            f"n_per_rep * len(reps) + n_controls must be at most {N_DIGITS**SECRET_LEN} distinct "
            f"secrets, got {n_per_rep * len(reps) + n_controls}"
        )
    n_test = check_int("n_test", n_test)
    if not isinstance(insert, bool):
        raise TypeError(f"insert must be a bool, got {type(insert).__name__}")
    rng = np.random.default_rng(check_seed("seed", seed))
    P = rng.dirichlet(np.full(vocab, 0.3), size=vocab)

    def chain(n: int) -> np.ndarray:
        out = np.zeros((n, length), dtype=np.int64)
        out[:, 0] = rng.integers(vocab, size=n)
        for j in range(1, length):
            cum = P[out[:, j - 1]].cumsum(1)
            out[:, j] = np.minimum((rng.random((n, 1)) > cum).sum(1), vocab - 1)
        return out

    background = chain(n_records - n_canary_rows)
    test = chain(n_test)
    filler = chain(n_canary_rows)  # drawn either way, so both corpora share everything else
    letters = np.arange(N_DIGITS, vocab)
    n_secrets = n_per_rep * len(reps) + n_controls
    tail = min(SECRET_LEN, length - SECRET_LEN)
    if n_secrets > len(letters) ** tail:
        raise ValueError(
            f"{n_secrets} secrets need distinct {tail}-letter prefix tails; the {len(letters)} "
            f"letters give only {len(letters) ** tail}: raise vocab or lower the counts"
        )
    # distinct last `tail` letters per prefix: sample codes without replacement
    codes = rng.choice(len(letters) ** tail, size=n_secrets, replace=False)
    tails = np.stack([(codes // len(letters) ** k) % len(letters) for k in range(tail)], 1)
    heads = rng.integers(len(letters), size=(n_secrets, length - SECRET_LEN - tail))
    prefixes = letters[np.concatenate([heads, tails], 1)]
    # distinct secrets: sample without replacement from the 10^4 candidates
    codes = rng.choice(N_DIGITS**SECRET_LEN, size=n_secrets, replace=False)
    secrets = np.stack([(codes // 10**k) % 10 for k in range(SECRET_LEN - 1, -1, -1)], axis=1)
    rep_of = np.concatenate([np.repeat(np.array(reps), n_per_rep), np.zeros(n_controls, int)])
    canary_rows = np.array(
        [
            np.concatenate([p, s])
            for p, s, r in zip(prefixes, secrets, rep_of, strict=True)
            for _ in range(r)
        ],
        dtype=np.int64,
    )
    train = np.concatenate([background, canary_rows if insert else filler])
    train = train[rng.permutation(len(train))]
    return Corpus(train, test, prefixes.astype(np.int64), secrets.astype(np.int64), rep_of, vocab)
