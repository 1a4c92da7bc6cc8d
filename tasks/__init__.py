"""Prefect tasks: thin wrappers over `rlvr_core` that add retries, caching, logging and artifacts.

Each module imports Prefect and `rlvr_core` only; torch, ray and transformers
are imported inside the wrapped functions so flows import fast.
"""

import logging as _logging

# The core's progress and decisions (tiny-model warm-up, evaluation progress, ...) are logged by
# `rlvr_core.*` loggers. Prefect forwards them to the run's log when PREFECT_LOGGING_EXTRA_LOGGERS
# names `rlvr_core` (the Makefile, `make up`, the demo and the Docker image set it); they must
# also pass INFO, which the root logger's default WARNING would drop.
if _logging.getLogger("rlvr_core").level == _logging.NOTSET:
    _logging.getLogger("rlvr_core").setLevel(_logging.INFO)
