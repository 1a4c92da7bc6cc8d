"""The archetype families; importing this package registers every archetype (see `task.archetypes`)."""

from rlvr_core.envs.web.archetypes import extraction, languages, limits, navigation, reasoning, safety  # noqa: F401
