# GPU-node image: the project with requirements/gpu.lock (torch 2.13.0 built for CUDA 13.0, vLLM 0.32) on the CUDA 13.0
# runtime the wheels are built for. The host needs an NVIDIA driver R580 or newer (CUDA 13.0); docs/GPU.md.
# Build:  docker build -t rlvr-pipeline:gpu .
# Run a worker on a node:  docker run --gpus all --network host --ipc=host -e PREFECT_API_URL=... rlvr-pipeline:gpu \
#            prefect worker start --pool rlvr-gpu
# --ipc=host (or --shm-size=16g): Ray's object store, vLLM and NCCL use /dev/shm, which Docker caps at 64 MB.
# The project lives in /app (WORKDIR); prefect.yaml's pull step (orchestration/checkout.py) sends each flow run there,
# so deployments registered on a host (`make up`) run here unchanged; to register them from the image instead,
# see deployments/README.md (Workers in Docker).
FROM nvidia/cuda:13.0.2-cudnn-runtime-ubuntu24.04

ENV DEBIAN_FRONTEND=noninteractive \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PREFECT_SERVER_ANALYTICS_ENABLED=false \
    PREFECT_LOGGING_EXTRA_LOGGERS=rlvr_core \
    VIRTUAL_ENV=/opt/venv \
    PATH=/opt/venv/bin:$PATH
# DL3064 takes TOKENIZERS_PARALLELISM (a Hugging Face tokenizers switch) for a token; waived here only, so a
# real secret put in ENV is still caught (the image holds none: credentials come from `docker run -e`).
# hadolint ignore=DL3064
ENV TOKENIZERS_PARALLELISM=false

RUN apt-get update \
 && apt-get install -y --no-install-recommends software-properties-common git ca-certificates util-linux bubblewrap \
 && add-apt-repository -y ppa:deadsnakes/ppa \
 && apt-get install -y --no-install-recommends python3.11 python3.11-venv python3.11-dev build-essential \
 && rm -rf /var/lib/apt/lists/* \
 && python3.11 -m venv $VIRTUAL_ENV

WORKDIR /app
# Dependencies first, so code edits do not invalidate the heavy layer: exactly the GPU lock, hashes checked.
COPY requirements/gpu.lock requirements/gpu.lock
RUN pip install pip==26.3 \
 && pip install --no-deps --require-hashes -r requirements/gpu.lock

COPY . .
RUN pip install --no-deps -e . \
 && pip check \
 && python -c "import rlvr_core, orchestration, flows, tasks, vllm, torch; print('torch', torch.__version__, 'vllm', vllm.__version__)"

# bubblewrap gives the code sandbox its pid/net/mount namespaces (without it the sandbox falls back to host mode).
# Evaluation settings are enforced by the runner; the image only makes sure the GPU stack is present.
CMD ["prefect", "worker", "start", "--pool", "rlvr-gpu", "--type", "process"]
