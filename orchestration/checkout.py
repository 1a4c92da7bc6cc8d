"""The pull step of every deployment: run the flow from the checkout this worker's environment has installed.

Without a pull step, `prefect deploy` records the folder it ran in, an
absolute path on the machine that registered the deployments. A worker on
another node, or in the Docker image (project in /app), would then look for
the flow code where it is not. This step finds the project from the
installed package instead: the editable install (`make install`, the image's
`pip install -e .`) points at the checkout, wherever it is on this machine.
Prefect runs it in each flow-run process before it loads the flow.
"""

from __future__ import annotations

import os
from pathlib import Path

CHECKOUT = Path(__file__).resolve().parents[1]


def enter_checkout() -> dict[str, str]:
    """Change into the checkout this package was installed from; return it as `directory` (Prefect's step
    output convention, like `set_working_directory`)."""
    if not (CHECKOUT / "prefect.yaml").is_file() or not (CHECKOUT / "flows").is_dir():
        raise RuntimeError(f"the `orchestration` package at {CHECKOUT} is not inside an rlvr-pipeline checkout "
                           f"(no prefect.yaml and flows/ beside it), so the flow code cannot be found. Fix: install "
                           f"the project editable from its checkout on this worker (`make install`, or "
                           f"`pip install -e .` as the Docker image does)")
    os.chdir(CHECKOUT)
    return {"directory": str(CHECKOUT)}
