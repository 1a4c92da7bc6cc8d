"""What a weight sync ships: each tensor once (tied duplicates left out), in the rollout engine's dtype.

Why: the split layout sends the trainer's weights to every rollout worker
after each update through Ray's object store. Sent as the trainer's fp32
`state_dict`, Qwen3-1.7B is ~8 GB a sync, a tied `lm_head` (the embedding
matrix again, 0.6 GB in fp32) included; in the engine's bf16 with the
duplicate left out it is ~3.4 GB, the same weights the engine would hold
after its own cast.

numpy (what the object store shares without copying) has no bfloat16, so
bf16 tensors travel as their 16-bit patterns (`int16`) and are viewed back
on arrival; nothing is rounded twice.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from rlvr_core.generation.hf import aliased_keys


@dataclass(frozen=True)
class WeightPayload:
    dtype: str                          # torch dtype name the tensors have, e.g. "bfloat16"
    arrays: dict[str, np.ndarray]       # state-dict key -> array (bf16 as int16 bit patterns)

    @property
    def nbytes(self) -> int:
        return sum(a.nbytes for a in self.arrays.values())

    def tensors(self) -> dict[str, torch.Tensor]:
        """The tensors, without a copy where numpy allows (arrays from the object store are read-only)."""
        import warnings

        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message="The given NumPy array is not writable")
            out = {k: torch.from_numpy(a) for k, a in self.arrays.items()}
        return {k: t.view(torch.bfloat16) for k, t in out.items()} if self.dtype == "bfloat16" else out


def pack_weights(model: torch.nn.Module, dtype: torch.dtype = torch.float32) -> WeightPayload:
    """`model`'s state dict in `dtype` on the CPU, each tied tensor once."""
    skip = aliased_keys(model)
    arrays = {}
    for name, tensor in model.state_dict().items():
        if name in skip:
            continue
        cpu = tensor.detach().to("cpu", dtype)
        arrays[name] = (cpu.view(torch.int16) if dtype == torch.bfloat16 else cpu).numpy()
    return WeightPayload(dtype=str(dtype).removeprefix("torch."), arrays=arrays)
