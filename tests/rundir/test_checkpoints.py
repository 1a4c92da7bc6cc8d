"""Checkpoints are published atomically: complete and loadable, or absent."""

import json
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import torch

from rlvr_core.rundir.checkpoints import (BackgroundPublisher, CheckpointError, _verify_shard_index,
                                          latest_resumable_checkpoint, list_checkpoints, load_training_state,
                                          publish_checkpoint, read_checkpoint, verify_checkpoint, write_checkpoint)
from rlvr_core.rundir.layout import CHECKPOINT_MANIFEST as MANIFEST


@pytest.fixture(scope="module")
def model_and_tokenizer():
    from rlvr_core.models.tiny import TinyRecipe, build_tokenizer, build_untrained_model

    tokenizer = build_tokenizer()
    model = build_untrained_model(TinyRecipe(), len(tokenizer), tokenizer.eos_token_id, tokenizer.pad_token_id)
    return model.eval(), tokenizer


def publish(model_and_tokenizer, root, step, **kwargs):
    model, tokenizer = model_and_tokenizer
    return publish_checkpoint(model, tokenizer, root, step=step, trainer_version=step, config_hash="cfg", **kwargs)


def test_checkpoint_loads_untouched_with_from_pretrained_and_gives_identical_logits(model_and_tokenizer, tmp_path):
    from transformers import AutoModelForCausalLM, AutoTokenizer

    info = publish(model_and_tokenizer, tmp_path, 50)
    assert Path(info.path) == tmp_path / "step-000050"
    assert (info.step, info.trainer_version, info.config_hash) == (50, 50, "cfg")
    loaded = AutoModelForCausalLM.from_pretrained(info.path).eval()
    tokenizer = AutoTokenizer.from_pretrained(info.path)
    assert tokenizer.padding_side == "left" and tokenizer.eos_token == "<eos>"
    ids = tokenizer(["What is 47 + 38?\n"], return_tensors="pt")["input_ids"]
    with torch.no_grad():
        assert torch.equal(loaded(ids).logits, model_and_tokenizer[0](ids).logits)


def test_manifest_names_every_file_with_its_hash(model_and_tokenizer, tmp_path):
    info = publish(model_and_tokenizer, tmp_path, 1, training_state={"step": 1})
    manifest = json.loads((Path(info.path) / MANIFEST).read_text())
    on_disk = {p.relative_to(info.path).as_posix() for p in Path(info.path).rglob("*") if p.is_file()}
    assert set(manifest["files"]) | set(manifest["state_files"]) == on_disk - {MANIFEST}
    assert {"config.json", "model.safetensors", "tokenizer.json"} <= set(manifest["files"])
    assert set(manifest["state_files"]) == {"training_state/state.pt"}  # not part of the model's content hash
    assert verify_checkpoint(info.path) == info
    # Same weights, same content hash (created_at differs, the hash does not).
    again = publish(model_and_tokenizer, tmp_path, 2, training_state={"step": 1})
    assert again.content_hash == info.content_hash


def test_verify_names_a_corrupted_file(model_and_tokenizer, tmp_path):
    info = publish(model_and_tokenizer, tmp_path, 1)
    (Path(info.path) / "config.json").write_text("{}")
    with pytest.raises(CheckpointError, match="config.json does not match its manifest"):
        verify_checkpoint(info.path)


def test_training_state_round_trips(model_and_tokenizer, tmp_path):
    state = {"optimizer": {"exp_avg": torch.arange(4.0)}, "data_position": 123, "rng": torch.get_rng_state()}
    info = publish(model_and_tokenizer, tmp_path, 1, training_state=state)
    loaded = load_training_state(info.path)
    assert loaded["data_position"] == 123
    assert torch.equal(loaded["optimizer"]["exp_avg"], state["optimizer"]["exp_avg"])
    assert torch.equal(loaded["rng"], state["rng"])
    assert load_training_state(publish(model_and_tokenizer, tmp_path, 2).path) is None


def test_tampered_training_state_is_refused(model_and_tokenizer, tmp_path):
    info = publish(model_and_tokenizer, tmp_path, 1, training_state={"step": 1})
    torch.save({"step": 999}, Path(info.path) / "training_state" / "state.pt")
    with pytest.raises(CheckpointError, match="does not match its manifest hash"):
        load_training_state(info.path)


def test_a_step_is_published_once(model_and_tokenizer, tmp_path):
    publish(model_and_tokenizer, tmp_path, 5)
    with pytest.raises(CheckpointError, match="step-000005 already exists"):
        publish(model_and_tokenizer, tmp_path, 5)


class _Unpicklable:
    def __reduce__(self):
        raise RuntimeError("disk full (simulated)")


def test_failed_publish_leaves_previous_checkpoint_and_no_folder(model_and_tokenizer, tmp_path):
    first = publish(model_and_tokenizer, tmp_path, 1)
    with pytest.raises(RuntimeError, match="disk full"):
        publish(model_and_tokenizer, tmp_path, 2, training_state={"bad": _Unpicklable()})
    assert list_checkpoints(tmp_path) == [first]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["step-000001"]
    verify_checkpoint(first.path)


_KILLED_WRITER = textwrap.dedent("""
    import sys, time
    from rlvr_core.rundir.checkpoints import publish_checkpoint
    from rlvr_core.models.tiny import TinyRecipe, build_tokenizer, build_untrained_model

    class Stall:  # pickled while training_state is written: after weights, before the manifest
        def __reduce__(self):
            print("WRITING", flush=True)
            time.sleep(60)
            return (dict, ())

    tok = build_tokenizer()
    model = build_untrained_model(TinyRecipe(), len(tok), tok.eos_token_id, tok.pad_token_id)
    publish_checkpoint(model, tok, sys.argv[1], step=1, trainer_version=1, config_hash="cfg")
    publish_checkpoint(model, tok, sys.argv[1], step=2, trainer_version=2, config_hash="cfg",
                       training_state={"stall": Stall()})
""")


@pytest.mark.slow
def test_kill_9_mid_publish_leaves_previous_checkpoint_intact(model_and_tokenizer, tmp_path):
    proc = subprocess.Popen([sys.executable, "-c", _KILLED_WRITER, str(tmp_path)], stdout=subprocess.PIPE, text=True,
                            cwd=Path(__file__).resolve().parents[2])
    try:
        assert proc.stdout.readline().strip() == "WRITING"
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    (first,) = list_checkpoints(tmp_path)
    assert first.step == 1
    verify_checkpoint(first.path)
    leftovers = [p.name for p in tmp_path.iterdir() if p.name != "step-000001"]
    assert len(leftovers) == 1 and leftovers[0].startswith(".tmp-step-000002-")
    # The next publish clears the dead writer's temp folder.
    publish(model_and_tokenizer, tmp_path, 3)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["step-000001", "step-000003"]


def test_keep_last_deletes_oldest_complete_only(model_and_tokenizer, tmp_path):
    in_progress = tmp_path / f".tmp-step-000099-{os.getpid()}-abcd1234"  # a live writer's folder
    in_progress.mkdir()
    not_a_checkpoint = tmp_path / "step-000000"  # no manifest
    not_a_checkpoint.mkdir()
    for step in range(1, 5):
        publish(model_and_tokenizer, tmp_path, step, keep_last=2)
    assert [info.step for info in list_checkpoints(tmp_path)] == [3, 4]
    assert in_progress.is_dir() and not_a_checkpoint.is_dir()
    assert not (tmp_path / "step-000001").exists() and not (tmp_path / "step-000002").exists()
    with pytest.raises(ValueError, match="keep_last=0"):
        publish(model_and_tokenizer, tmp_path, 5, keep_last=0)


def test_list_ignores_manifestless_folders_and_missing_dirs(model_and_tokenizer, tmp_path):
    assert list_checkpoints(tmp_path / "nothing-here") == []
    (tmp_path / "step-000007").mkdir()
    with pytest.raises(CheckpointError, match="has no checkpoint.json"):
        read_checkpoint(tmp_path / "step-000007")
    assert list_checkpoints(tmp_path) == []


def test_sharded_checkpoint_index_names_present_files_and_loads(model_and_tokenizer, tmp_path):
    from transformers import AutoModelForCausalLM

    info = publish(model_and_tokenizer, tmp_path, 1, max_shard_size="300KB")
    folder = Path(info.path)
    shards = sorted(p.name for p in folder.glob("*.safetensors"))
    assert len(shards) > 1 and (folder / "model.safetensors.index.json").is_file()
    loaded = AutoModelForCausalLM.from_pretrained(folder)
    for name, tensor in model_and_tokenizer[0].state_dict().items():
        assert torch.equal(loaded.state_dict()[name], tensor), name
    (folder / shards[0]).unlink()
    with pytest.raises(CheckpointError, match=f"names shards \\['{shards[0]}'\\] that are missing"):
        _verify_shard_index(folder)


def test_weights_are_written_in_the_engines_dtype_and_load_as_such(model_and_tokenizer, tmp_path):
    from safetensors import safe_open
    from transformers import AutoModelForCausalLM

    info = publish(model_and_tokenizer, tmp_path, 1, weights_dtype=torch.bfloat16)
    with safe_open(str(Path(info.path) / "model.safetensors"), framework="pt") as handle:
        assert {handle.get_tensor(k).dtype for k in handle.keys()} == {torch.bfloat16}
    assert json.loads((Path(info.path) / "config.json").read_text())["dtype"] == "bfloat16"
    loaded = AutoModelForCausalLM.from_pretrained(info.path, dtype=torch.float32)
    for name, tensor in model_and_tokenizer[0].state_dict().items():
        assert torch.equal(loaded.state_dict()[name], tensor.to(torch.bfloat16).float()), name
    fp32 = publish(model_and_tokenizer, tmp_path, 2)
    assert (Path(info.path) / "model.safetensors").stat().st_size < 0.6 * (Path(fp32.path) / "model.safetensors").stat().st_size


def test_a_tied_embedding_is_stored_once_whatever_the_dtype(model_and_tokenizer, tmp_path):
    """The tiny model ties its output head to its embedding: a bf16 checkpoint names the same tensors as the fp32
    one (a copy per key used to write the head again), and the CPU copy behind the fp32 master weights keeps
    both keys on one tensor (on a GPU each key's copy used to be saved apart)."""
    from safetensors import safe_open

    from rlvr_core.rundir.checkpoints import cpu_state

    keys = {}
    for name, dtype in (("fp32", None), ("bf16", torch.bfloat16)):
        info = publish(model_and_tokenizer, tmp_path / name, 1, weights_dtype=dtype)
        with safe_open(str(Path(info.path) / "model.safetensors"), framework="pt") as handle:
            keys[name] = set(handle.keys())
    assert keys["bf16"] == keys["fp32"] and "lm_head.weight" not in keys["bf16"]
    for dtype in (None, torch.bfloat16):
        state = cpu_state(model_and_tokenizer[0].state_dict(), dtype)
        assert state["lm_head.weight"] is state["model.embed_tokens.weight"]
        assert {t.dtype for t in state.values()} == {dtype or torch.float32}


def test_keep_optimizer_latest_leaves_training_state_in_the_newest_checkpoint_only(model_and_tokenizer, tmp_path):
    infos = [publish(model_and_tokenizer, tmp_path, step, training_state={"step": step}, keep_optimizer="latest")
             for step in (1, 2, 3)]
    assert [load_training_state(i.path) for i in infos] == [None, None, {"step": 3}]
    assert not (Path(infos[0].path) / "training_state").exists()
    assert [verify_checkpoint(i.path) for i in infos] == infos  # same content hashes after the strip
    assert latest_resumable_checkpoint(tmp_path) == infos[-1]


def test_keep_optimizer_all_keeps_every_training_state(model_and_tokenizer, tmp_path):
    for step in (1, 2):
        publish(model_and_tokenizer, tmp_path, step, training_state={"step": step})
    assert [load_training_state(i.path) for i in list_checkpoints(tmp_path)] == [{"step": 1}, {"step": 2}]


def test_a_checkpoint_is_invisible_until_its_background_commit_is_done(model_and_tokenizer, tmp_path):
    model, tokenizer = model_and_tokenizer
    pending = write_checkpoint(model, tokenizer, tmp_path, step=4, trainer_version=4, config_hash="cfg",
                               training_state={"step": 4})
    assert list_checkpoints(tmp_path) == [] and pending.tmp.is_dir()
    publisher = BackgroundPublisher()
    publisher.submit(pending)
    (info,) = publisher.finished(wait=True)
    assert list_checkpoints(tmp_path) == [info] and info.step == 4 and not pending.tmp.exists()
    assert publisher.finished(wait=True) == []
