"""Generation throughput of the hf backend on the tiny model, and what log-probs cost.

    .venv/bin/python benchmarks/generation.py [--model DIR] [--batch-sizes 64,256,1024]

Workload: 128 arith prompts x 8 samples x 8 new tokens at temperature 1 (the
generation of eight CPU-demo GRPO steps of 16 prompts x 8 samples), on an
untrained tiny model unless --model is given (same architecture, so the same
cost per token as the warmed-up one). Prints, per micro-batch size, the median over
--repeats of: the backend's generate (log-probs taken from generate's own
logits), plain `model.generate` without logits (the floor), and one extra
forward pass that would recompute the log-probs instead.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path


def _median_seconds(fn, repeats: int) -> tuple[float, object]:
    times, result = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", type=Path, help="HF folder (default: an untrained tiny model built in a temp dir)")
    parser.add_argument("--prompts", type=int, default=128)
    parser.add_argument("--n", type=int, default=8)
    parser.add_argument("--max-new-tokens", type=int, default=8)
    parser.add_argument("--batch-sizes", default="64,256,1024")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--device", default="auto")
    args = parser.parse_args()

    import torch

    from rlvr_core.data.arith import generate_arith
    from rlvr_core.generation import SamplingParams, create_backend
    from rlvr_core.generation.consistency import sequence_logprobs
    from rlvr_core.models.tiny import PROMPT_TEMPLATE

    model_dir = args.model or _untrained_tiny_model(Path(tempfile.mkdtemp(prefix="bench-tiny-")))
    prompts = [PROMPT_TEMPLATE.format(prompt=p.prompt) for p in generate_arith("test", args.prompts, seed=0)]
    params = SamplingParams(max_new_tokens=args.max_new_tokens, n=args.n, seed=0)
    print(f"model {model_dir} | {args.prompts} prompts x {args.n} samples x {args.max_new_tokens} new tokens | "
          f"torch threads {torch.get_num_threads()}")
    for batch_size in (int(b) for b in args.batch_sizes.split(",")):
        backend = create_backend("hf", str(model_dir), device=args.device, batch_size=batch_size)
        backend.generate(prompts[:8], params)  # warm-up
        seconds, gens = _median_seconds(lambda: backend.generate(prompts, params), args.repeats)
        tokens = sum(len(g.token_ids) for g in gens)
        plain = _median_seconds(lambda: _plain_generate(backend, prompts, params, batch_size), args.repeats)[0]
        rescore = _median_seconds(lambda: _rescore(backend, gens, batch_size, sequence_logprobs), args.repeats)[0]
        print(f"batch_size {batch_size:5d}: backend.generate {seconds:6.3f} s, {tokens} tokens, "
              f"{tokens / seconds:8.0f} tokens/s | plain model.generate (no logits) {plain:6.3f} s | "
              f"extra forward pass for log-probs {rescore:6.3f} s")
        backend.close()


def _plain_generate(backend, prompts, params, batch_size) -> None:
    import torch

    rows = [p for p in prompts for _ in range(params.n)]
    with torch.inference_mode():
        for start in range(0, len(rows), batch_size):
            batch = backend.tokenizer(rows[start:start + batch_size], return_tensors="pt", padding=True,
                                      add_special_tokens=False).to(backend.device)
            backend.model.generate(**batch, max_new_tokens=params.max_new_tokens, do_sample=True, top_k=0,
                                   pad_token_id=backend.tokenizer.pad_token_id)


def _rescore(backend, gens, batch_size, sequence_logprobs) -> None:
    for start in range(0, len(gens), batch_size):
        chunk = gens[start:start + batch_size]
        sequence_logprobs(backend.model, [g.prompt_token_ids for g in chunk], [g.token_ids for g in chunk],
                          backend.tokenizer.pad_token_id)


def _untrained_tiny_model(folder: Path) -> Path:
    from rlvr_core.models.tiny import TinyRecipe, build_tokenizer, build_untrained_model

    tokenizer = build_tokenizer()
    model = build_untrained_model(TinyRecipe(), len(tokenizer), tokenizer.eos_token_id, tokenizer.pad_token_id)
    model.generation_config.eos_token_id = tokenizer.eos_token_id
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


if __name__ == "__main__":
    main()
