"""A real (untrained) tiny model on disk, built once per session: fast, offline, and a genuine Qwen3 LM."""

from pathlib import Path

import pytest


def save_untrained_tiny_model(folder: Path) -> Path:
    from rlvr_core.models.tiny import TinyRecipe, build_tokenizer, build_untrained_model

    tokenizer = build_tokenizer()
    model = build_untrained_model(TinyRecipe(), len(tokenizer), tokenizer.eos_token_id, tokenizer.pad_token_id)
    model.generation_config.pad_token_id = tokenizer.pad_token_id
    model.generation_config.eos_token_id = tokenizer.eos_token_id
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


@pytest.fixture(scope="session")
def tiny_model_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return save_untrained_tiny_model(tmp_path_factory.mktemp("tiny-untrained"))
