# The README's commands. Each target sets up what it needs on a fresh machine.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-$(shell cksum pyproject.toml | cut -d' ' -f1)
# The benchmark's baselines (the `bench` extra) go in only for `make bench`.
BENCH_STAMP := $(VENV)/.bench-installed-$(shell cksum pyproject.toml | cut -d' ' -f1)

.PHONY: run test bench lint system-deps clean

run: $(STAMP) system-deps ## start the app on http://127.0.0.1:8501 (embedded defaults)
	$(VENV)/bin/tablelens run

test: $(STAMP) system-deps ## run the test suite
	$(PY) -m pytest

bench: $(BENCH_STAMP) ## print speed and memory figures
	$(PY) -m bench

lint: $(STAMP) ## check the code with ruff (as .ci/run does)
	$(VENV)/bin/ruff check .

system-deps:
	@bash scripts/system-deps.sh

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test]'
	rm -f $(VENV)/.installed-*
	touch $@

$(BENCH_STAMP): $(STAMP)
	$(PY) -m pip install --quiet -e '.[test,bench]'
	rm -f $(VENV)/.bench-installed-*
	touch $@

clean:
	rm -rf $(VENV) .pytest_cache .tablelens
