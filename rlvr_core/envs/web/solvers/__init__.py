"""Reference solvers: compute each archetype's gold answer from the HTML alone.

A solver reads pages through `fetch(path) -> html or None`, starting at
`start`, and the task's public parameters (what the question states: an id,
a caption, a product name). It never sees the generator's variables; the
generator checks that the solver agrees with what it meant to build, so a
generator bug fails at generation time instead of producing a wrong gold.

The package imports only the standard library, bs4, lxml and html5lib, with
relative imports only, so the oracle can copy it into the `run_python`
sandbox and run it there unchanged (`source_files`). `common.py` holds the
page conventions every solver relies on (the visibility rule, the one-of
rule, prices) and the lazy reading the generators test their decoys with.
An unanswerable task's solver returns `{"$abstain": reason}`.
"""

from . import (extraction, forms, gotchas, languages, limits, navigation, parsers, primer, reasoning, safety,
               structured, tables, traversal)
from .common import ABSTAIN, lazy_reading

FAMILIES = (primer, extraction, tables, gotchas, traversal, forms, structured, parsers, languages, reasoning,
            navigation, limits, safety)
SOLVERS = {name: solver for family in FAMILIES for name, solver in family.SOLVERS.items()}

__all__ = ["ABSTAIN", "SOLVERS", "lazy_reading", "solve", "source_files"]


def solve(archetype, fetch, start, params):
    """The gold answer of one task (JSON-compatible), or `{"$abstain": reason}`."""
    return SOLVERS[archetype](fetch, start, params)


def source_files():
    """{file name: source} of this package, to rebuild it elsewhere (the sandbox)."""
    import os

    folder = os.path.dirname(os.path.abspath(__file__))
    out = {}
    for name in sorted(os.listdir(folder)):
        if name.endswith(".py"):
            with open(os.path.join(folder, name), encoding="utf-8") as handle:
                out[name] = handle.read()
    return out
