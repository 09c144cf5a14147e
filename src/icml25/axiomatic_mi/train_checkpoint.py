"""Train a 2-SAT transformer with the paper's recipe and save its state dict (``large``, a GPU).

    python -m icml25.axiomatic_mi.train_checkpoint --out data/axiomatic_mi/ours.pth

1M balanced formulas (5 variables, 10 clauses), 60/40 train/test, AdamW lr 1e-3, weight decay
1.0, betas (0.9, 0.98), full batches of 10k, 10-epoch warm-up, 1,000 epochs (the authors' log
reaches test accuracy 0.96 after 40 epochs and 0.99 after 60). Not run for this book (no GPU);
``load_checkpoint(path)`` reads the file it writes.
"""

from __future__ import annotations

import argparse

import torch

from icml25.axiomatic_mi.data import generate_2cnf
from icml25.axiomatic_mi.transformer import TinyTransformer, train_2sat


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True)
    parser.add_argument("--n", type=int, default=1_000_000)
    parser.add_argument("--epochs", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    device = "cuda" if torch.cuda.is_available() else "cpu"
    tokens, labels, _ = generate_2cnf(args.n, seed=args.seed)
    split = int(0.6 * args.n)
    model = TinyTransformer(seed=args.seed).to(device)
    train_2sat(model, tokens[:split], labels[:split], args.epochs, seed=args.seed)
    acc = (model.predict_sat(tokens[split:]) == labels[split:].astype(bool)).mean()
    print(f"test accuracy {acc:.4f} on {args.n - split} formulas")
    torch.save({k: v.cpu() for k, v in model.state_dict().items()}, args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
