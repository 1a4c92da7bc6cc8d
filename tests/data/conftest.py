from collections.abc import Callable
from pathlib import Path

import pytest

# See tests/storage/conftest.py: imported here until the root conftest
# registers tests/s3_server.py with `pytest_plugins`, then this import can go.
from tests.s3_server import dead_endpoint, hung_endpoint, s3_bucket, s3_endpoint  # noqa: F401

HubRepo = dict[str | None, dict[str, list[dict]]]


@pytest.fixture
def make_hub_repo(tmp_path: Path) -> Callable[[str, HubRepo], Path]:
    """Build a local folder laid out like a Hugging Face dataset repo.

    `configs` maps a config name (None for a single default config) to
    {split: rows}; each split becomes `<config>/<split>-00000-of-00001.parquet`
    and README.md declares the configs, so `datasets.load_dataset(folder,
    config, split=...)` reads it exactly as it reads the hub.
    """

    def build(name: str, configs: HubRepo) -> Path:
        import pandas as pd

        root = tmp_path / "hub" / name
        lines = ["---", "configs:"]
        for config, splits in configs.items():
            folder = config or "data"
            lines += [f"- config_name: {config or 'default'}", "  data_files:"]
            for split, rows in splits.items():
                (root / folder).mkdir(parents=True, exist_ok=True)
                pd.DataFrame(rows).to_parquet(root / folder / f"{split}-00000-of-00001.parquet", index=False)
                lines += [f"  - split: {split}", f"    path: {folder}/{split}-*"]
        (root / "README.md").write_text("\n".join(lines + ["---", ""]))
        return root

    return build


@pytest.fixture(autouse=True)
def isolated_hf_datasets_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`datasets` converts what it loads into Arrow files under its cache; keep those out of ~/.cache."""
    import datasets

    monkeypatch.setattr(datasets.config, "HF_DATASETS_CACHE", tmp_path / "hf-datasets-cache")
