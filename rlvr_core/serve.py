"""`python -m rlvr_core.serve MODEL --port P`: a local model behind an OpenAI-compatible HTTP API.

Endpoints: `GET /v1/models`, `POST /v1/completions`, `POST /v1/chat/completions`
(the request fields the OpenAI clients send: prompt/messages, max_tokens,
temperature, top_p, n, stop, seed). Generation goes through the `hf` backend
(or any `GenerationBackend` given to `create_app`), so a checkpoint can be
evaluated over HTTP exactly as a hosted model is, and the `openai` backend is
tested against a real server.

What it is not: a production server. Requests are served one generate call
at a time (a lock; the backend is not thread-safe), there is no streaming,
and a chat conversation is rendered with the tokenizer's chat template when it
has one, else as the message contents joined by newlines.
`--fail-first N` makes the first N generation requests answer 503, to test
clients' retry logic against a real server.
"""

from __future__ import annotations

import argparse
import threading
import time
import uuid
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, Field

if TYPE_CHECKING:
    from fastapi import FastAPI

    from rlvr_core.generation.base import GenerationBackend


class _Common(BaseModel):
    model: str | None = None
    max_tokens: int = Field(16, ge=1)
    temperature: float = Field(1.0, ge=0.0)
    top_p: float = Field(1.0, gt=0.0, le=1.0)
    n: int = Field(1, ge=1)
    stop: str | list[str] | None = None
    seed: int | None = None


class CompletionRequest(_Common):
    prompt: str | list[str]


class ChatMessage(BaseModel):
    role: str
    content: str


class ChatRequest(_Common):
    messages: list[ChatMessage]


def _render_chat(backend: "GenerationBackend", messages: list[ChatMessage]) -> str:
    tokenizer = backend.tokenizer
    turns = [m.model_dump() for m in messages]
    if getattr(tokenizer, "chat_template", None):
        return tokenizer.apply_chat_template(turns, tokenize=False, add_generation_prompt=True)
    return "\n".join(m.content for m in messages) + "\n"


def create_app(backend: "GenerationBackend", model_name: str, *, fail_first: int = 0) -> "FastAPI":
    """The FastAPI app serving `backend` under `model_name`."""
    from fastapi import FastAPI, HTTPException
    from fastapi.responses import JSONResponse
    from starlette.exceptions import HTTPException as StarletteHTTPException

    from rlvr_core.generation.base import SamplingParams

    app = FastAPI(title="rlvr-pipeline OpenAI-compatible server")

    @app.exception_handler(StarletteHTTPException)
    async def openai_error(_request: Any, exc: StarletteHTTPException) -> JSONResponse:
        """Errors in OpenAI's shape, so clients show the message (not just the status code)."""
        kind = "invalid_request_error" if exc.status_code < 500 else "server_error"
        return JSONResponse({"error": {"message": str(exc.detail), "type": kind, "code": exc.status_code}},
                            status_code=exc.status_code)
    lock = threading.Lock()
    failures = {"left": fail_first}

    def run(prompts: list[str], req: _Common) -> tuple[list[Any], int, int]:
        if req.model not in (None, model_name):
            raise HTTPException(404, f"model {req.model!r} is not served here; this server serves {model_name!r}")
        with lock:
            if failures["left"] > 0:
                failures["left"] -= 1
                raise HTTPException(503, "injected failure (--fail-first)")
            stop = (req.stop,) if isinstance(req.stop, str) else tuple(req.stop or ())
            try:
                params = SamplingParams(max_new_tokens=req.max_tokens, temperature=req.temperature, top_p=req.top_p,
                                        n=req.n, seed=req.seed, stop=stop)
            except ValueError as err:
                raise HTTPException(400, str(err)) from None
            generations = backend.generate(prompts, params)
        prompt_tokens = sum(len(g.prompt_token_ids) for g in generations if g.sample_index == 0)
        return generations, prompt_tokens, sum(len(g.token_ids) for g in generations)

    def usage(prompt_tokens: int, completion_tokens: int) -> dict[str, int]:
        return {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                "total_tokens": prompt_tokens + completion_tokens}

    @app.get("/v1/models")
    def models() -> dict[str, Any]:
        return {"object": "list", "data": [{"id": model_name, "object": "model", "created": 0, "owned_by": "rlvr"}]}

    @app.post("/v1/completions")
    def completions(req: CompletionRequest) -> dict[str, Any]:
        prompts = [req.prompt] if isinstance(req.prompt, str) else req.prompt
        generations, p_tok, c_tok = run(prompts, req)
        choices = [{"index": i, "text": g.text, "finish_reason": g.finish_reason, "logprobs": None}
                   for i, g in enumerate(generations)]
        return {"id": f"cmpl-{uuid.uuid4().hex}", "object": "text_completion", "created": int(time.time()),
                "model": model_name, "choices": choices, "usage": usage(p_tok, c_tok)}

    @app.post("/v1/chat/completions")
    def chat(req: ChatRequest) -> dict[str, Any]:
        generations, p_tok, c_tok = run([_render_chat(backend, req.messages)], req)
        choices = [{"index": i, "message": {"role": "assistant", "content": g.text}, "finish_reason": g.finish_reason,
                    "logprobs": None} for i, g in enumerate(generations)]
        return {"id": f"chatcmpl-{uuid.uuid4().hex}", "object": "chat.completion", "created": int(time.time()),
                "model": model_name, "choices": choices, "usage": usage(p_tok, c_tok)}

    return app


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m rlvr_core.serve",
                                     description="Serve a model through an OpenAI-compatible API (/v1/models, "
                                                 "/v1/completions, /v1/chat/completions) using the hf backend.")
    parser.add_argument("model", help="HF folder, checkpoint folder, or 'tiny:arith'")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--served-model-name", default=None, help="name clients use (default: MODEL as given)")
    parser.add_argument("--device", default="auto")
    parser.add_argument("--dtype", default="auto")
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--store", default=None, help="store used to resolve 'tiny:arith' / store URIs")
    parser.add_argument("--fail-first", type=int, default=0, help="testing: answer the first N generation requests 503")
    args = parser.parse_args(argv)

    import uvicorn

    from rlvr_core.generation import create_backend
    from rlvr_core.models.resolve import resolve_model_path
    from rlvr_core.storage import open_store

    path = resolve_model_path(args.model, open_store(args.store))
    backend = create_backend("hf", path, device=args.device, dtype=args.dtype, batch_size=args.batch_size)
    app = create_app(backend, args.served_model_name or args.model, fail_first=args.fail_first)
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
