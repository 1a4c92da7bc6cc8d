"""`python -m rlvr_core.serve` as a real server process, used through the official `openai` client."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from openai import OpenAI

from rlvr_core.evaluation import evaluate
from rlvr_core.evaluation.jsonl import read_records
from rlvr_core.storage import open_store

pytestmark = pytest.mark.slow
NAME = "tiny"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="module")
def base_url(trained_tiny_model_dir: Path) -> Iterator[str]:
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "rlvr_core.serve", str(trained_tiny_model_dir), "--port", str(port),
                             "--served-model-name", NAME, "--device", "cpu", "--fail-first", "1"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    url = f"http://127.0.0.1:{port}/v1"
    deadline = time.monotonic() + 180
    while True:
        assert proc.poll() is None, f"server exited: {proc.stderr.read()[-2000:]}"
        assert time.monotonic() < deadline, "server did not come up in 180 s"
        try:
            if httpx.get(f"{url}/models", timeout=1).status_code == 200:
                break
        except httpx.TransportError:
            time.sleep(0.3)
    # --fail-first 1: the first generation request gets a 503, exactly what the openai backend must ride out.
    assert httpx.post(f"{url}/completions", json={"prompt": "x", "max_tokens": 1}).status_code == 503
    yield url
    proc.terminate()
    proc.wait(timeout=30)


def test_models_lists_the_served_name(base_url: str):
    client = OpenAI(base_url=base_url, api_key="EMPTY")
    assert [m.id for m in client.models.list()] == [NAME]


def test_completions_answer_an_arith_prompt_in_the_tiny_model_format(base_url: str):
    client = OpenAI(base_url=base_url, api_key="EMPTY")
    reply = client.completions.create(model=NAME, prompt="What is 21 + 34?\n", max_tokens=8, temperature=0)
    [choice] = reply.choices
    assert choice.text.startswith("####") and choice.finish_reason in ("stop", "length")
    assert reply.usage.completion_tokens >= 1


def test_chat_completions_return_n_assistant_messages(base_url: str):
    client = OpenAI(base_url=base_url, api_key="EMPTY")
    reply = client.chat.completions.create(model=NAME, messages=[{"role": "user", "content": "What is 10 + 11?"}],
                                           max_tokens=8, temperature=1.0, n=2, seed=1)
    assert [c.index for c in reply.choices] == [0, 1]
    assert all(c.message.role == "assistant" and c.message.content is not None for c in reply.choices)


def test_an_unknown_model_is_a_404_naming_the_served_one(base_url: str):
    client = OpenAI(base_url=base_url, api_key="EMPTY", max_retries=0)
    with pytest.raises(Exception, match="this server serves 'tiny'") as info:
        client.completions.create(model="gpt-x", prompt="hi", max_tokens=2)
    assert info.value.status_code == 404


def test_evaluating_through_the_endpoint_matches_evaluating_locally(base_url: str, trained_tiny_model_dir: Path,
                                                                    tmp_path: Path):
    store = open_store(str(tmp_path / "store"))
    remote = evaluate(NAME, "arith", output_dir=tmp_path / "remote", backend="openai", limit=24, store=store,
                      backend_options={"base_url": base_url, "concurrency": 4}, progress=False)
    local = evaluate(str(trained_tiny_model_dir), "arith", output_dir=tmp_path / "local", limit=24, device="cpu",
                     store=store, progress=False)
    completions = {d: [r["completion"] for r in read_records(tmp_path / d / "completions.jsonl")]
                   for d in ("remote", "local")}
    assert completions["remote"] == completions["local"]  # greedy, same weights, same prompts
    assert remote["metrics"] == local["metrics"]
    assert remote["backend"] == "openai" and remote["model"]["content_hash"] == f"endpoint:{NAME}@{base_url}"
