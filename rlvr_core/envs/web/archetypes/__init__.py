"""The archetype families; importing this package registers every archetype (see `task.archetypes`)."""

from rlvr_core.envs.web.archetypes import (  # noqa: F401
    extraction, forms, gotchas, languages, limits, navigation, parsers, primer, reasoning, safety, structured, tables,
    traversal)
