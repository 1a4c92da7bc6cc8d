"""Multi-turn environments: a model acts through tools over several turns, then a verifier scores the episode.

`episode.py` holds what any environment shares (the episode record with its
model/tool token spans, the batched turn loop), `chat.py` how a conversation
becomes a prompt (the tokenizer's chat template, or a plain transcript when it
has none), `policy.py` the adapters from generation backends (hf, vLLM, an
OpenAI-compatible endpoint) to a policy, `jsonsafe.py` the total JSON
reading of model output every environment shares. `web/` is the
web-extraction environment (`webextract`). Nothing here imports Prefect.
"""
