"""Configs: every shipped file loads; every class of mistake gets a message a user can act on."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from rlvr_core.config import ConfigError, ExperimentConfig, load_config
from rlvr_core.config.__main__ import main as config_cli
from rlvr_core.config.loader import CONFIG_DIR

RUNNABLE_CONFIGS = sorted(CONFIG_DIR.glob("*.yaml"))


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


MINIMAL = """
model: {name_or_path: "tiny:arith"}
data: {train: [{name: arith}]}
"""


@pytest.mark.parametrize("path", RUNNABLE_CONFIGS, ids=lambda p: p.stem)
def test_every_shipped_config_validates(path: Path) -> None:
    config = load_config(path)
    assert isinstance(config, ExperimentConfig)
    assert config.training.max_staleness >= config.training.sync_every - 1


def test_config_names_resolve_without_path_or_suffix() -> None:
    assert load_config("tiny-arith").run.name == "tiny-arith"


def test_extends_merges_sections_key_by_key(tmp_path: Path) -> None:
    write(tmp_path, "parent.yaml", MINIMAL + "training: {max_steps: 7, learning_rate: 0.001}\n")
    child = write(tmp_path, "child.yaml", "extends: parent.yaml\ntraining: {max_steps: 9}\n")
    config = load_config(child)
    assert config.training.max_steps == 9
    assert config.training.learning_rate == 0.001  # inherited, not reset to the default


def test_dotted_overrides_are_parsed_as_yaml_values() -> None:
    config = load_config("tiny-arith", ["training.max_staleness=2", "training.sync_every=3", "grpo.loss=dapo"])
    assert (config.training.max_staleness, config.training.sync_every, config.grpo.loss) == (2, 3, "dapo")


def test_unknown_field_names_the_path_and_the_fix(tmp_path: Path) -> None:
    path = write(tmp_path, "typo.yaml", MINIMAL + "training: {max_step: 5}\n")
    with pytest.raises(ConfigError, match=r"typo\.yaml: training\.max_step = 5: unknown field\. Fix: remove it or check the spelling"):
        load_config(path)


def test_out_of_range_value_names_the_bound() -> None:
    with pytest.raises(ConfigError, match=r"tiny-arith\.yaml: sampling\.group_size = 1: must be >= 2\. Fix: set sampling\.group_size >= 2$"):
        load_config("tiny-arith", ["sampling.group_size=1"])


def test_bad_choice_lists_the_allowed_values() -> None:
    with pytest.raises(ConfigError, match=r"grpo\.loss = 'ppo': must be one of 'grpo', 'drgrpo' or 'dapo'\. Fix: use one of"):
        load_config("tiny-arith", ["grpo.loss=ppo"])


def test_missing_required_section_says_where_to_add_it(tmp_path: Path) -> None:
    path = write(tmp_path, "nodata.yaml", 'model: {name_or_path: "tiny:arith"}\n')
    with pytest.raises(ConfigError, match=r"nodata\.yaml: data: required field is missing\. Fix: add it to the file or an `extends:` parent"):
        load_config(path)


def test_staleness_below_sync_interval_is_rejected_with_the_fix() -> None:
    with pytest.raises(ConfigError, match=r"\.yaml: training: max_staleness=0 is below sync_every - 1 = 2.*Fix: set training\.max_staleness >= 2"):
        load_config("tiny-arith", ["training.sync_every=3", "training.max_staleness=0"])


def test_prompt_template_without_placeholder_is_rejected() -> None:
    with pytest.raises(ConfigError, match=r"data\.prompt_template = 'Question': must contain the placeholder `\{prompt\}`\. Fix:"):
        load_config("tiny-arith", ["data.prompt_template=Question"])


def test_all_problems_are_reported_at_once_one_line_each() -> None:
    with pytest.raises(ConfigError) as caught:
        load_config("tiny-arith", ["sampling.group_size=0", "grpo.loss=x", "model.revision=main"])
    lines = str(caught.value).splitlines()
    assert len(lines) == len(caught.value.problems) == 3
    assert all(line.startswith(str(CONFIG_DIR / "tiny-arith.yaml") + ": ") and ". Fix: " in line for line in lines)


def test_malformed_yaml_and_missing_parent_and_cycles(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"bad\.yaml:2:1: not valid YAML: .*\. Fix: check the indentation"):
        load_config(write(tmp_path, "bad.yaml", "model: [unclosed\n"))
    with pytest.raises(ConfigError, match=r"orphan\.yaml: extends = 'nowhere\.yaml': no such file \(looked for .*nowhere\.yaml\)\. Fix:"):
        load_config(write(tmp_path, "orphan.yaml", "extends: nowhere.yaml\n"))
    write(tmp_path, "a.yaml", "extends: b.yaml\n")
    with pytest.raises(ConfigError, match=r"a\.yaml: extends = 'b\.yaml': `extends:` forms a cycle: .*b\.yaml -> .*a\.yaml -> .*b\.yaml\. Fix:"):
        load_config(write(tmp_path, "b.yaml", "extends: a.yaml\n"))


def test_unknown_config_name_lists_the_known_ones() -> None:
    with pytest.raises(ConfigError, match=r"no-such: no such config file\. Fix: pass a path or one of: .*tiny-arith"):
        load_config("no-such")


def test_override_without_equals_shows_the_syntax() -> None:
    with pytest.raises(ConfigError, match=r"tiny-arith\.yaml: override 'training\.max_steps': expected `dotted\.path=value`\. Fix:"):
        load_config("tiny-arith", ["training.max_steps"])


def test_cli_validate_exits_2_with_the_message(capsys: pytest.CaptureFixture[str]) -> None:
    assert config_cli(["validate", "tiny-arith", "sampling.temperature=0", "--quiet"]) == 2
    out = capsys.readouterr()
    assert out.out == "" and out.err.endswith("sampling.temperature = 0: must be > 0.0. Fix: set sampling.temperature > 0.0\n")
    assert config_cli(["validate", "tiny-arith", "--quiet"]) == 0


def test_cli_validate_prints_the_resolved_config(capsys: pytest.CaptureFixture[str]) -> None:
    assert config_cli(["validate", "tiny-arith", "training.max_steps=7"]) == 0
    out = capsys.readouterr()
    resolved = yaml.safe_load(out.out)
    assert resolved["training"]["max_steps"] == 7 and resolved["training"]["warmup_steps"] == 0  # defaults filled in
    assert ExperimentConfig.model_validate(resolved) == load_config("tiny-arith", ["training.max_steps=7"])
    assert out.err.startswith("OK: tiny-arith (hash ")


def test_config_hash_is_stable_and_sensitive() -> None:
    base = load_config("tiny-arith")
    assert base.config_hash() == load_config("tiny-arith").config_hash()
    assert base.config_hash() != load_config("tiny-arith", ["training.max_steps=3"]).config_hash()


def test_unknown_dataset_name_lists_the_registered_ones() -> None:
    with pytest.raises(ConfigError, match=r"data\.train\.0\.name = 'gsm8k': unknown dataset\. Fix: use one of \[.*'openai/gsm8k'"):
        load_config("tiny-arith", ["data.train=[{name: gsm8k}]"])


def test_split_the_dataset_lacks_lists_its_splits() -> None:
    with pytest.raises(ConfigError, match=r"data\.train\.0\.split = 'validation': dataset 'openai/gsm8k' has no split 'validation'\. Fix: use one of \['train', 'test'\]"):
        load_config("tiny-arith", ["data.train=[{name: openai/gsm8k, split: validation}]"])
