"""A device plan as text: one line per GPU with its role, then when evaluations run (log, artifact, CLI, docs)."""

from __future__ import annotations

from rlvr_core.devices.plan import Device, DevicePlan

LAYOUT_NAMES = {"cpu": "training on the CPU", "colocated": "colocated (one actor trains and generates)",
                "shared-gpu": "shared GPU (trainer + sleeping vLLM engine)",
                "split": "split (trainer and rollout GPUs)"}


def render_plan(plan: DevicePlan) -> str:
    topology = plan.topology
    source = {"nvml": "NVML on this node", "ray": "the Ray cluster's resources", "given": "as given"}[topology.source]
    lines = [f"device plan: {LAYOUT_NAMES[plan.layout]} on {topology.describe()} ({source}"
             f"{', one Ray cluster' if topology.ray and topology.source == 'given' else ''})"]
    slot = "slot" if topology.ray else "GPU"
    for n, node in enumerate(topology.nodes):
        header = f"  {node.name}" + (f" [{node.node_id[:12]}]" if node.node_id else "")
        if not node.gpus:
            lines.append(f"{header}: no GPU")
        for i, gpu in enumerate(node.gpus):
            prefix = header if i == 0 else " " * len(header)
            lines.append(f"{prefix}  {slot} {gpu}  {_role(plan, Device(n, gpu))}")
        lines.extend(f"{' ' * len(header)}  left out: {reason}" for reason in node.excluded)
    lines.append(f"  evaluations while training runs: {_evaluations(plan)}")
    if plan.training_devices:
        lines.append(f"  evaluations after training: {len(plan.all_devices)} at a time, one per GPU")
    visible = plan.cuda_visible_devices()
    if visible is not None:
        lines.append(f"  training process: CUDA_VISIBLE_DEVICES={visible} (its private Ray cluster holds only these)")
    elif topology.ray and plan.training_devices:
        lines.append("  training process: joins the Ray cluster; each actor is pinned to its node and asks for "
                     f"{plan.training_gpu_share:g} GPU")
    if plan.engine_memory_utilization is not None:
        lines.append(f"  vLLM engine: gpu_memory_utilization {plan.engine_memory_utilization:.2f}, sleep mode on")
    lines.extend(f"  note: {note}" for note in plan.notes)
    lines.extend(f"  note: {note}" for note in topology.notes)
    return "\n".join(lines)


def _role(plan: DevicePlan, device: Device) -> str:
    roles = []
    if device == plan.trainer:
        roles.append("train")
    roles += [f"generate (rollout worker {i})" for i, g in enumerate(plan.generators) if g == device]
    if roles:
        together = " + ".join(roles)
        return f"{together}, then evaluate once training ends"
    return "evaluate (from the start)"


def _evaluations(plan: DevicePlan) -> str:
    if plan.evaluates_on_cpu:
        return "on the CPU, one at a time"
    if not plan.evaluators:
        return "none: each waits for a device, and they start when training ends"
    by_node: dict[int, list[int]] = {}
    for d in plan.evaluators:
        by_node.setdefault(d.node, []).append(d.gpu)
    shown = ", ".join(f"{plan.topology.nodes[n].name} {_ranges(gpus)}" for n, gpus in by_node.items())
    return f"{len(plan.evaluators)} at a time ({shown}); the base model's is one of them"


def _ranges(numbers: list[int]) -> str:
    """`2-7`, `0, 3-4`: consecutive GPU numbers as ranges."""
    parts, start = [], None
    for i, n in enumerate(sorted(numbers)):
        if start is None:
            start = n
        if i + 1 == len(numbers) or sorted(numbers)[i + 1] != n + 1:
            parts.append(str(n) if n == start else f"{start}-{n}")
            start = None
    return ", ".join(parts)
