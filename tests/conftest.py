"""Fixtures shared by the whole suite.

Models are real (built offline from `rlvr_core.models.tiny`), never mocks:
`tiny_model_dir` is an untrained tiny model (fast, for plumbing tests) and
`trained_tiny_model_dir` the warmed-up one (built once, ~1-2 minutes, and
reused across sessions from `.rlvr/test-cache/`).
"""

from __future__ import annotations

import functools
import os
from pathlib import Path

import pytest

# Real services started by the tests: a moto S3 server, a Prefect API.
pytest_plugins = ["tests.s3_server", "tests.prefect_fixtures"]

# No test may reach the hub or phone home.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
# Every Ray cluster of the suite requires a token, as docs/GPU.md starts one: this process's own, in a private file
# the `ray start` nodes and drivers it starts inherit (a private cluster of `connect_ray` keeps it too).
if not os.environ.get("RAY_AUTH_TOKEN_PATH"):
    import tempfile

    from rlvr_core.grpo.cluster import write_cluster_token

    os.environ["RAY_AUTH_TOKEN_PATH"] = str(write_cluster_token(Path(tempfile.mkdtemp(prefix="rlvr-ray-token-")) / "token"))
os.environ["RAY_AUTH_MODE"] = "token"
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
# A Ray cluster starts one idle Python worker per CPU when its first driver connects, for tasks that may come; the
# suite's runs use actors, which start their own workers, so most of those would start (a Python interpreter and
# Ray's imports each) only to be stopped with their cluster. The clusters the tests start inherit this.
os.environ.setdefault("RAY_prestart_worker_first_driver", "0")

# Under pytest-xdist (`make test`), the workers share the machine's cores: each worker's torch (and the processes
# it starts, which inherit this) gets its share of threads. Oversubscribed OpenMP threads spin-wait on each other
# and make every torch test several times slower. A test that needs another count sets it for its own process.
if os.environ.get("PYTEST_XDIST_WORKER_COUNT"):
    _share = max(1, (os.cpu_count() or 1) // int(os.environ["PYTEST_XDIST_WORKER_COUNT"]))
    os.environ.setdefault("OMP_NUM_THREADS", str(_share))

REPO_ROOT = Path(__file__).resolve().parents[1]
TEST_CACHE = REPO_ROOT / ".rlvr" / "test-cache"

# Nothing may come from caches outside the clone (a model or dataset left in ~/.cache by an
# earlier run would make a test pass here and fail on a fresh machine): point them inside it.
for _var, _sub in (("HF_HOME", "hf-home"), ("PREFECT_HOME", "prefect-home"), ("MPLCONFIGDIR", "matplotlib")):
    os.environ[_var] = str(TEST_CACHE / "homes" / _sub)
    (TEST_CACHE / "homes" / _sub).mkdir(parents=True, exist_ok=True)  # Prefect creates only the last level


@pytest.fixture(scope="session")
def tiny_model_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An untrained tiny Qwen3 model + tokenizer saved as a Hugging Face folder."""
    from rlvr_core.models.tiny import TinyRecipe, build_tokenizer, build_untrained_model

    folder = tmp_path_factory.mktemp("tiny-untrained")
    tokenizer = build_tokenizer()
    model = build_untrained_model(TinyRecipe(), len(tokenizer), tokenizer.eos_token_id, tokenizer.pad_token_id)
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


def _trained_tiny_model() -> Path:
    from rlvr_core.models.tiny import ensure_tiny_model
    from rlvr_core.storage import open_store

    return ensure_tiny_model(open_store(str(TEST_CACHE / "store")))


@pytest.fixture(scope="session")
def trained_tiny_model_dir() -> Path:
    """The warmed-up tiny model (~18% held-out on arith), built once into the clone's test cache and reused.

    The folder is the test store's own copy, checked against its recorded hashes on every use.
    """
    return _trained_tiny_model()


def pytest_sessionstart(session: pytest.Session) -> None:
    """Under xdist, the controller builds a missing trained tiny model before the workers start, on all cores.

    Most workers' first files need it: left to them, one worker would build it on its one thread while the
    others wait on the build lock."""
    if getattr(session.config.option, "numprocesses", None) and not hasattr(session.config, "workerinput"):
        _trained_tiny_model()


# Session services that the files using them share when those files run on one worker: each costs a server start
# (and, for `prefect_server`, a PostgreSQL cluster and its migrations) and its idle load for the rest of the
# session, on every worker that starts one.
SHARED_SERVICES = ("prefect_server", "prefect_harness")


@functools.cache
def shared_service(test_file: str) -> str | None:
    """The first of `SHARED_SERVICES` that `test_file` (relative to the repository) names, if any.

    Read from the file's text because the xdist controller schedules by node id and never collects; a file that
    reaches a service only through another file's fixture is not found, and merely starts its own."""
    path = REPO_ROOT / test_file
    text = path.read_text(encoding="utf-8") if path.is_file() else ""  # a node id from another root: no grouping
    return next((name for name in SHARED_SERVICES if name in text), None)


def pytest_xdist_make_scheduler(config: pytest.Config, log: object) -> object | None:
    """`--dist loadfile`, except that the files sharing a session service form one unit of work (one worker runs
    them and starts that service once, instead of each worker starting its own).

    Not pytest-xdist's `--dist loadgroup`: with pytest 9 its group suffix never reaches the node ids, so it falls
    back to scheduling test by test."""
    if config.getvalue("dist") != "loadfile":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class FilesSharingServices(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            test_file = nodeid.split("::", 1)[0]
            return shared_service(test_file) or test_file

    return FilesSharingServices(config, log)  # type: ignore[arg-type]


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Files that start servers or clusters, or hold slow tests, run first; the many quick tests fill in last.

    With `make test`'s workers taking whole files in collection order, a long file collected last would run alone
    at the end while the other worker idles; longest-first keeps both busy until the end. The order of the tests
    inside a file is kept.
    """
    def weight(item: pytest.Item) -> int:
        integration, slow = "integration" in Path(str(item.path)).parts, item.get_closest_marker("slow") is not None
        return (0 if slow else 1) if integration else (2 if slow else 3)

    first_in_file: dict[Path, int] = {}
    for item in items:
        path = Path(str(item.path))
        first_in_file[path] = min(first_in_file.get(path, 3), weight(item))
    items.sort(key=lambda item: first_in_file[Path(str(item.path))])
