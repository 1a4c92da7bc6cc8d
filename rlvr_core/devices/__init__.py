"""The device plan: which GPUs train, generate and evaluate on every node, decided once per run.

`python -m rlvr_core.devices plan CONFIG [--gpus 1,1]` prints the plan for a topology. Below the plan:
`gpu_state` (what NVML says of each GPU: free, busy, likely zombie; `python -m rlvr_core.devices.gpu_state`)
and `gpu_locks` (which GPUs are usable, and the per-GPU locks a process holds while it uses one).
"""

from rlvr_core.devices.plan import Device, DevicePlan, DevicePlanError, load_plan, plan_devices
from rlvr_core.devices.queue import DeviceQueue
from rlvr_core.devices.render import render_plan
from rlvr_core.devices.topology import Node, Topology

__all__ = ["Device", "DevicePlan", "DevicePlanError", "DeviceQueue", "Node", "Topology", "load_plan",
           "plan_devices", "render_plan"]
