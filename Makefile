# Two commands matter on a fresh machine: `make demo` and `make test`.
# Both create .venv when it is missing and install the project into it.
PY ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
HAS_GPU := $(shell command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1 && echo 1)
# CPU machines take the CPU build of torch (served from local disk here);
# GPU machines take the default CUDA build and the `gpu` extra (vLLM).
TORCH_SPEC := $(if $(HAS_GPU),torch,torch==2.13.0)
comma := ,
EXTRAS := $(if $(HAS_GPU),dev$(comma)gpu,dev)

export PREFECT_SERVER_ANALYTICS_ENABLED := false
# Core progress lines (tiny-model build, evaluation) in each flow run's Prefect log.
export PREFECT_LOGGING_EXTRA_LOGGERS := rlvr_core
export RAY_AUTH_MODE := disabled
export TOKENIZERS_PARALLELISM := false

.PHONY: install demo test up down clean help

help:
	@echo "make demo   - build the tiny model and offline data, run train-and-eval on CPU, print the report"
	@echo "make test   - run the whole test suite (same as CI)"
	@echo "make up     - local Prefect server + worker + prefect deploy --all"
	@echo "make down   - stop what make up started"

$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q "$(TORCH_SPEC)"
	$(BIN)/python -m pip install -q -e ".[$(EXTRAS)]"
	@touch $(STAMP)

install: $(STAMP)

# The demo and the suite never touch the network; `make up` workers may (real configs download).
demo test: export HF_HUB_OFFLINE := 1

demo: $(STAMP)
	$(BIN)/python -m flows.demo

test: $(STAMP)
	$(BIN)/python -m pytest -q

up: $(STAMP)
	PATH=$(CURDIR)/$(BIN):$$PATH bash deployments/up.sh

down:
	PATH=$(CURDIR)/$(BIN):$$PATH bash deployments/down.sh

clean:
	rm -rf .rlvr
