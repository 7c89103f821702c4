# Two commands work on a fresh clone: `make demo` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PACKAGE_STAMP := $(VENV)/.package-installed
STAMP := $(VENV)/.installed

.PHONY: demo test bench fuzz lint typecheck clean

# `make demo` needs the package alone (numpy, xdsl, llvmlite): a light first command.
$(PACKAGE_STAMP): pyproject.toml Makefile
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e .
	touch $(PACKAGE_STAMP)

# The rest adds the test extra and the interop extra (upstream MLIR's iree-opt and IREE,
# ~0.5 GB) to the same .venv, so that `make test` runs tests/interop; without it those tests
# skip with their reason.
$(STAMP): $(PACKAGE_STAMP)
	$(BIN)/python -m pip install --quiet -e '.[test,interop]'
	touch $(STAMP)

demo: $(PACKAGE_STAMP)
	$(BIN)/python examples/quickstart.py

test: $(STAMP)
	$(BIN)/python -m pytest
	$(BIN)/ruff check .
	$(MAKE) --no-print-directory typecheck

bench: $(STAMP)
	$(BIN)/python -m benchmarks $(BENCH_ARGS)

# make fuzz N=10000: random programs, compiled vs eager (tests/fuzz/run_fuzz.py);
# GRAD=1 also checks their gradients against finite differences
fuzz: $(STAMP)
	$(BIN)/python tests/fuzz/run_fuzz.py $(or $(N),1000) $(if $(GRAD),--grad)

lint: $(STAMP)
	$(BIN)/ruff check .

# mypy on the library ([tool.mypy] in pyproject.toml). The repository directory is not named
# after the package, so mypy reads it through the symlink build/typecheck/tracejit.
typecheck: $(STAMP)
	mkdir -p build/typecheck
	ln -sfn "$(CURDIR)" build/typecheck/tracejit
	cd build/typecheck && $(abspath $(BIN))/mypy -p tracejit \
		--config-file "$(CURDIR)/pyproject.toml" --cache-dir .mypy_cache

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .ruff_cache
	find tests -name Output -type d -prune -exec rm -rf {} +
