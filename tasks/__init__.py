"""Prefect tasks: thin wrappers over `rlvr_core` that add retries, caching, logging and artifacts.

Every module here defines at least one `@task` (tests/test_import_graph.py); what tasks and flows
share that is not a task lives in `orchestration`. Each module imports Prefect, `orchestration` and
`rlvr_core` only; torch, ray and transformers are imported inside the wrapped functions so flows
import fast.
"""
