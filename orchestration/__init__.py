"""Prefect plumbing that flows and tasks share but that is not itself a task: artifacts and the outbox
that sends them without blocking, checkpoint events, retry conditions, clean failures on bad input,
run names and tags, the trainer's log lines, the live training table, evaluations beside training,
Ray placement of task runs, and the deployments' pull step. It may import Prefect and `rlvr_core`,
never `tasks` or `flows` (tests/test_import_graph.py): flows -> tasks -> orchestration -> rlvr_core.
"""

import logging as _logging

# The core's progress and decisions (tiny-model warm-up, evaluation progress, ...) are logged by
# `rlvr_core.*` loggers. Prefect forwards them to the run's log when PREFECT_LOGGING_EXTRA_LOGGERS
# names `rlvr_core` (the Makefile, `make up`, the demo and the Docker image set it); they must
# also pass INFO, which the root logger's default WARNING would drop. Every task module imports
# this package, so any process that runs flows or tasks sets it.
if _logging.getLogger("rlvr_core").level == _logging.NOTSET:
    _logging.getLogger("rlvr_core").setLevel(_logging.INFO)
