# Two commands work on a fresh clone: `make demo` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test bench fuzz lint clean

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

# make fuzz N=10000: random programs, compiled vs eager (tests/fuzz/run_fuzz.py)
fuzz: $(STAMP)
	$(BIN)/python tests/fuzz/run_fuzz.py $(or $(N),1000)

lint: $(STAMP)
	$(BIN)/ruff check .

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .ruff_cache
	find tests -name Output -type d -prune -exec rm -rf {} +
