# Two commands work on a fresh clone: `make demo` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test bench lint clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/python examples/quickstart.py

test: $(STAMP)
	$(BIN)/python -m pytest
	$(BIN)/ruff check .

bench: $(STAMP)
	$(BIN)/python -m benchmarks $(BENCH_ARGS)

lint: $(STAMP)
	$(BIN)/ruff check .

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .ruff_cache
	find tests -name Output -type d -prune -exec rm -rf {} +
