"""Prefect tasks: thin wrappers over `rlvr_core` that add retries, caching, logging and artifacts.

Each module imports Prefect and `rlvr_core` only; torch, ray and transformers
are imported inside the wrapped functions so flows import fast.
"""
