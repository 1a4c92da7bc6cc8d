"""rlvr_core: the orchestrator-free library behind rlvr-pipeline.

Nothing in this package imports Prefect; every function can be called from a
notebook, a test or a Ray actor.
"""

__version__ = "0.1.0"
