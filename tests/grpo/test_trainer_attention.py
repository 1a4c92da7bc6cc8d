"""The trainer's attention kernel (`training.trainer_attention`): same loss and gradients as the model's default,
used only inside the trainer's own passes, so a colocated generator sharing the module keeps its kernel."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from tests.grpo.test_trainer_microbatch import random_batch, trainer


def test_eager_attention_gives_the_default_kernels_loss_and_gradients(tiny_model_dir: Path) -> None:
    batch = random_batch(4, seed=7)
    eager, default = trainer(tiny_model_dir, attention="eager"), trainer(tiny_model_dir)
    a, b = eager.accumulate_gradients(batch), default.accumulate_gradients(batch)
    assert a["loss"] == pytest.approx(b["loss"], rel=1e-4, abs=1e-6)
    for (name, p), q in zip(eager.model.named_parameters(), default.model.parameters()):
        assert p.grad is not None and p.grad.abs().sum() > 0, name
        torch.testing.assert_close(p.grad, q.grad, rtol=1e-4, atol=1e-6, msg=name)


def test_the_kernel_is_switched_for_the_trainers_passes_only(tiny_model_dir: Path, monkeypatch) -> None:
    policy = trainer(tiny_model_dir, attention="eager")
    loaded = policy.model.config._attn_implementation
    assert loaded != "eager" and policy.reference.config._attn_implementation == "eager"
    seen = []
    forward = type(policy.model).forward

    def recording_forward(model, *args, **kwargs):
        seen.append(model.config._attn_implementation)
        return forward(model, *args, **kwargs)

    monkeypatch.setattr(type(policy.model), "forward", recording_forward)
    policy.train_step(random_batch(2, seed=1))
    assert seen and set(seen) == {"eager"}
    assert policy.model.config._attn_implementation == loaded  # what a colocated generator samples with
