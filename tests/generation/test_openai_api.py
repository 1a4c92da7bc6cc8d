"""The openai backend against a real HTTP server that fails, stalls or answers on demand.

The server is a `ThreadingHTTPServer` speaking the /v1/completions wire format;
it answers "#### <prompt length>" so the tests can check that answers come back
to the right prompts in the right order whatever the concurrency.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from rlvr_core.generation import SamplingParams, create_backend
from rlvr_core.generation.openai_api import EndpointError, OpenAIBackend

GREEDY = SamplingParams(max_new_tokens=8, temperature=0.0)


@dataclass
class Script:
    """What the server does: fail the first `fail_first` requests with `fail_status`, delay each answer, and
    (with `gather`) hold the first answers until that many requests are in flight, so an overlap the client
    allows happens however slowly the host schedules it.

    A request counts as in flight from its arrival until its answer starts to go out: a client bounded at N
    can only send its next request after reading an answer, so the count never exceeds the client's bound."""

    fail_first: int = 0
    fail_status: int = 503
    delay_s: float = 0.0
    text_suffix: str = ""
    gather: int = 0
    gather_timeout_s: float = 30.0
    arrivals: list[float] = field(default_factory=list)
    in_flight: int = 0
    max_in_flight: int = 0
    lock: threading.Condition = field(default_factory=threading.Condition)


def make_handler(script: Script) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:  # keep test output clean
            pass

        def _send(self, status: int, payload: dict) -> None:
            with script.lock:
                script.in_flight -= 1
            body = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_POST(self) -> None:  # noqa: N802 (http.server's name)
            request = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            with script.lock:
                script.arrivals.append(time.monotonic())
                attempt = len(script.arrivals)
                script.in_flight += 1
                script.max_in_flight = max(script.max_in_flight, script.in_flight)
                script.lock.notify_all()
                if attempt <= script.gather:
                    script.lock.wait_for(lambda: script.max_in_flight >= script.gather, script.gather_timeout_s)
            time.sleep(script.delay_s)
            if attempt <= script.fail_first:
                self._send(script.fail_status, {"error": {"message": "scripted failure", "type": "server_error"}})
                return
            text = f"#### {len(request['prompt'])}{script.text_suffix}"
            choices = [{"index": i, "text": text, "finish_reason": "stop", "logprobs": None}
                       for i in range(request.get("n", 1))]
            self._send(200, {"id": "cmpl-1", "object": "text_completion", "created": 0, "model": request["model"],
                             "choices": choices})

    return Handler


@pytest.fixture
def server() -> Iterator[tuple[str, Script]]:
    script = Script()
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), make_handler(script))
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/v1", script
    httpd.shutdown()
    httpd.server_close()


def backend(url: str, **options) -> OpenAIBackend:
    return OpenAIBackend("m", base_url=url, backoff_s=0.01, max_backoff_s=0.05, **options)


def test_answers_come_back_to_their_prompts_in_order(server):
    url, script = server
    script.delay_s = 0.05
    prompts = ["a" * k for k in range(1, 11)]
    generations = backend(url, concurrency=4).generate(prompts, GREEDY)
    assert [g.text for g in generations] == [f"#### {k}" for k in range(1, 11)]
    assert [g.prompt_index for g in generations] == list(range(10))


def test_n_samples_per_prompt_are_grouped_by_prompt(server):
    url, _ = server
    generations = backend(url).generate(["x", "yy"], SamplingParams(max_new_tokens=4, temperature=1.0, n=3))
    assert [(g.prompt_index, g.sample_index, g.text) for g in generations] == [
        (0, 0, "#### 1"), (0, 1, "#### 1"), (0, 2, "#### 1"), (1, 0, "#### 2"), (1, 1, "#### 2"), (1, 2, "#### 2")]


def test_server_errors_are_retried_until_success(server):
    url, script = server
    script.fail_first = 2
    [generation] = backend(url, max_retries=3).generate(["abc"], GREEDY)
    assert generation.text == "#### 3" and len(script.arrivals) == 3


def test_retries_give_up_with_a_clear_error(server):
    url, script = server
    script.fail_first = 100
    with pytest.raises(EndpointError, match="failed after 3 attempts"):
        backend(url, max_retries=2).generate(["abc"], GREEDY)
    assert len(script.arrivals) == 3


def test_a_bad_request_is_not_retried(server):
    url, script = server
    script.fail_first, script.fail_status = 100, 400
    with pytest.raises(EndpointError, match=r"rejected the request \(400\)"):
        backend(url, max_retries=5).generate(["abc"], GREEDY)
    assert len(script.arrivals) == 1


def test_concurrency_bounds_requests_in_flight(server):
    url, script = server
    script.delay_s, script.gather = 0.05, 3  # the first answers wait until three requests overlap
    backend(url, concurrency=3).generate(["p"] * 9, GREEDY)
    assert script.max_in_flight == 3


def test_rate_limit_spaces_request_starts(server):
    url, script = server
    backend(url, concurrency=8, requests_per_s=20).generate(["p"] * 6, GREEDY)
    # Starts are 1/20 s apart, so 6 requests span >= 0.25 s (arrival jitter allowed for); unlimited they overlap.
    assert script.arrivals[-1] - script.arrivals[0] >= 0.2


def test_stop_strings_are_applied_to_the_returned_text(server):
    url, script = server
    script.text_suffix = "\nQ: next question"
    [generation] = backend(url).generate(["abc"], SamplingParams(max_new_tokens=8, temperature=0.0, stop=("Q:",)))
    assert generation.text == "#### 3\n" and generation.finish_reason == "stop"


def test_registry_builds_it_and_weights_cannot_be_loaded(server):
    url, _ = server
    engine = create_backend("openai", "m", base_url=url)
    with pytest.raises(NotImplementedError, match="Restart the server on the new checkpoint"):
        engine.load_weights({}, version=1)
    engine.close()


def test_missing_base_url_says_how_to_set_it(monkeypatch):
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    with pytest.raises(ValueError, match="--base-url"):
        OpenAIBackend("m")
