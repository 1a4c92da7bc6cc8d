"""`tiny:arith-chain`, the long workload's start model: its own recipe, cache folder and names."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rlvr_core.models.tiny import RECORD, TinyRecipe, build_tokenizer
from rlvr_core.models.tiny_chain import ChainRecipe, chain_recipe_for, chain_task


def test_the_chain_recipe_has_its_own_hash_and_folder_and_leaves_tiny_arith_s_unchanged() -> None:
    assert ChainRecipe().digest() != TinyRecipe().digest()
    assert (ChainRecipe.folder, TinyRecipe.folder) == ("tiny-arith-chain", "tiny-arith")
    assert ChainRecipe(seed=1).digest() != ChainRecipe().digest()


def test_warmup_rows_train_only_on_the_worked_answer_and_its_eos() -> None:
    tokenizer = build_tokenizer()
    task = chain_task(tokenizer, ChainRecipe(train_problems=3, eval_problems=2))
    assert len(task.rows) == 3 and task.selection_problems == 2
    ids, labels = task.rows[0]
    trained = [t for t, label in zip(ids, labels) if label != -100]
    text = tokenizer.decode(trained[:-1])
    assert trained[-1] == tokenizer.eos_token_id and text.startswith(tuple("0123456789"))
    assert "\n#### " in text and tokenizer.decode(ids[:len(ids) - len(trained)]).startswith("What is ")


@pytest.mark.parametrize("name, seed", [("tiny:arith-chain", 0), ("tiny:arith-chain@3", 3)])
def test_model_names_select_the_build_seed(name: str, seed: int) -> None:
    assert chain_recipe_for(name) == ChainRecipe(seed=seed)


@pytest.mark.parametrize("name", ["tiny:arith", "tiny:arith-chain@x", "tiny:arith-chain@"])
def test_other_names_are_refused_with_the_accepted_form(name: str) -> None:
    with pytest.raises(ValueError, match=r"'tiny:arith-chain'.*tiny:arith-chain@1"):
        chain_recipe_for(name)


def test_a_short_build_writes_a_loadable_model_and_its_record_under_its_own_folder(tmp_path: Path) -> None:
    """The whole build path with a step budget of 10 (the real warm-up takes minutes): model, record, folder."""
    from transformers import AutoModelForCausalLM

    from rlvr_core.models.tiny import ensure_tiny_model
    from rlvr_core.storage import open_store

    recipe = ChainRecipe(max_warmup_steps=10, check_every=5, batch_size=8, train_problems=200, eval_problems=8,
                         max_new_tokens=16)
    folder = ensure_tiny_model(open_store(str(tmp_path / "store")), recipe=recipe)
    assert folder == tmp_path / "store" / "models" / "tiny-arith-chain" / recipe.digest()
    record = json.loads((folder / RECORD).read_text())
    assert record["recipe_hash"] == recipe.digest() and record["steps"] == 10 and record["selection_problems"] == 8
    assert AutoModelForCausalLM.from_pretrained(folder).config.num_hidden_layers == recipe.layers
