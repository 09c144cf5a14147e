"""Command line: ``python -m icml25 check [CHAPTER ...] [--scale small|large] [--json FILE]``.

``check`` runs chapters' notebooks headless and prints their claims (see
:mod:`icml25.common.verify`).
"""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if not argv or argv[0] in ("-h", "--help") or argv[0] != "check":
        print(__doc__.strip())
        return 0 if argv and argv[0] in ("-h", "--help") else 2
    from icml25.common.verify import main as check

    return check(argv[1:])


if __name__ == "__main__":
    raise SystemExit(main())
