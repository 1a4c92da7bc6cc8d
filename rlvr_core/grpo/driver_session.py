"""One training session, run by the driver: the run folder, Ray actors, data, verifier pool, and the steps.

See `driver.py` for the step structure and the generate-ahead rule.

Multi-turn datasets (listed in `rlvr_core/envs/registry.py`) take the same
path: their problems go to the workers' `episodes` instead of `generate`,
and come back as samples whose loss mask leaves tool outputs untrained.

Resume from anything: `--resume` continues from the newest complete
checkpoint, after cutting the trace back to that checkpoint's step; a run
killed before its first checkpoint restarts from step 0 with empty traces
and says so (a log warning and an entry under "Events" in RESULTS.md). A
fresh start in an existing folder also starts with empty traces, and is
refused if the folder already holds checkpoints (that run must be resumed).
"""

from __future__ import annotations

import contextlib
import logging
import os
import time
from collections import deque
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rlvr_core.envs.registry import environment_for
from rlvr_core.grpo.batch import (Group, Rollout, build_train_batch, filter_groups, split_by_staleness,
                                  split_unjudged)
from rlvr_core.grpo.result import TrainResult
from rlvr_core.grpo.sampling import (episode_seed, plan_requests, rollout_settings, sample_seeds, source_of,
                                     stop_strings, training_prompt)
from rlvr_core.grpo.trace import BackgroundSummaries, TraceWriter, read_trace, write_rollout_settings
from rlvr_core.rundir import layout
from rlvr_core.rundir.atomic import write_json_atomic

if TYPE_CHECKING:
    from rlvr_core.rundir.checkpoints import CheckpointInfo
    from rlvr_core.config import ExperimentConfig
    from rlvr_core.devices import DevicePlan

SPOT_CHECK_PROMPTS = 4
log = logging.getLogger(__name__)


class ResumeError(ValueError):
    """A run folder that cannot be resumed or started in; the message names the folder and the fix."""


@dataclass
class PendingBatch:
    """Rollout requests submitted for a step, generated ahead of its update."""
    step: int
    requests: list[Any]
    submitted_at: float
    positions: list[int]  # the stream positions of its prompts, in the order they were drawn


class Session:
    def __init__(self, config: "ExperimentConfig", run_dir: Path | None, *, resume: bool) -> None:
        self.config, self.resume = config, resume
        # Absolute: the path reaches actors that may run in another working folder, or on another node.
        self.run_dir = Path(run_dir).absolute() if run_dir is not None else None
        self.owns_ray = False
        self.verifier = None
        self.trace: TraceWriter | None = None
        self.summaries: BackgroundSummaries | None = None
        self.events: list[str] = []  # driver events (resume, restart), shown with the rollout pool's in RESULTS.md
        self.held = contextlib.ExitStack()  # the GPU locks of a local device plan, held while the run lasts

    # -- setup / teardown -------------------------------------------------------------------------------------
    def __enter__(self) -> "Session":
        from rlvr_core.rundir import create
        from rlvr_core.rundir.checkpoints import list_checkpoints

        cfg = self.config
        if self.resume:
            if self.run_dir is None or not layout.config_path(self.run_dir).is_file():
                raise ResumeError(f"--resume {self.run_dir}: not a run folder (no config.yaml). Fix: pass the folder "
                                  f"a run was started in, e.g. .rlvr/runs/<name>_<YYYYMMDD-HHMMSS>")
            if layout.run_record_path(self.run_dir).is_file():
                create.update_run_json(self.run_dir, status="running", resumed_at=create.now_iso())
            else:  # killed between config.yaml and run.json: nothing ran yet
                create.init_run_dir(self.run_dir, cfg)
        elif self.run_dir is None:
            self.run_dir = create.create_run_dir(cfg, runs_dir=Path(cfg.run.runs_dir).absolute())
        else:
            if self.run_dir.is_dir() and list_checkpoints(layout.checkpoints_dir(self.run_dir)):
                raise ResumeError(f"--run-dir {self.run_dir} already holds checkpoints of a run. Fix: continue it "
                                  f"with --resume {self.run_dir}, or pick a new --run-dir")
            self.run_dir.mkdir(parents=True, exist_ok=True)
            create.init_run_dir(self.run_dir, cfg)
        self.trace = TraceWriter(self.run_dir)
        write_rollout_settings(self.run_dir, rollout_settings(cfg))
        return self

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
        from rlvr_core.rundir import create

        if self.verifier is not None:
            self.verifier.close()
        if self.summaries is not None:
            self.summaries.close()
        if self.trace is not None:
            self.trace.close()
        status = "completed" if exc_type is None else f"failed: {exc_type.__name__}: {exc}"[:500]
        create.update_run_json(self.run_dir, ended_at=create.now_iso(), status=status)
        if self.owns_ray:
            import ray

            ray.shutdown()
        self.held.close()

    def _setup(self) -> None:
        import ray

        from rlvr_core.rundir.checkpoints import list_checkpoints, load_training_state
        from rlvr_core.data.loader import load_problems
        from rlvr_core.evaluation import sources  # noqa: F401  (eval-only datasets a held-out set may name)
        from rlvr_core.grpo.actors import rollout_factory, start_trainer
        from rlvr_core.grpo.algo import get_algorithm
        from rlvr_core.grpo.cluster import connect_ray
        from rlvr_core.grpo.prompts import build_prompt_stream
        from rlvr_core.grpo.rollouts import RolloutPool
        from rlvr_core.models.resolve import resolve_model_path
        from rlvr_core.storage import open_store
        from rlvr_core.verifiers.pool import VerifierPool

        cfg, t = self.config, self.config.training
        self.plan = self._device_plan()  # before anything loads: a config the devices cannot run fails here
        checkpoint = self._start_point()  # before anything slow: a damaged trace fails here, in seconds
        self.summaries = BackgroundSummaries(self.run_dir)
        store = open_store(cfg.storage.root, endpoint_url=cfg.storage.endpoint_url)
        base_path = resolve_model_path(cfg.model.name_or_path, store)
        self.stream = build_prompt_stream(cfg, store)
        eval_name = t.eval_dataset or cfg.data.train[0].name
        self.heldout = (load_problems(eval_name, t.eval_split, store=store, limit=t.eval_problems)
                        if t.eval_every else [])
        self._record_sandbox([spec.name for spec in cfg.data.train] + ([eval_name] if t.eval_every else []))
        self.algorithm = get_algorithm(cfg.grpo.loss)
        self.step, self.heldout_history = 0, []
        policy_path, state = base_path, None
        if checkpoint is not None:
            policy_path, state = checkpoint.path, load_training_state(checkpoint.path)
            driver = state["driver"]
            self.step = driver["step"]
            self.stream.load_state(driver["data"])
            self.heldout_history = [(s["step"], s["heldout_accuracy"]) for s in read_trace(self.run_dir)
                                    if s.get("heldout_accuracy") is not None]
        self._check_memory(policy_path)  # before Ray and the actors: a config that cannot fit fails in seconds
        self.owns_ray = connect_ray(t.ray_address, num_cpus=t.ray_num_cpus)
        self._record_cluster()
        if not self.owns_ray:
            from rlvr_core.paths import check_nodes_share

            check_nodes_share(self.run_dir, "run.runs_dir")  # a trainer on another node must write here too
        self.trainers = start_trainer(cfg, self.plan, policy_path, base_path)
        if t.shares_gpu:  # the engine sizes its cache from the memory free when it starts: trainer first
            ray.get(self.trainers.lead.ready.remote(), timeout=t.actor_start_timeout_s)
        self.pool = RolloutPool(rollout_factory(cfg, self.plan, policy_path, self.run_dir.name, self.trainers),
                                t.generators, t.heartbeat_timeout_s, t.actor_start_timeout_s)
        self.pool.start()
        if state is not None:
            self.trainers.load_state(state)
        self.version = (state or {}).get("trainer_version", 0)
        self.pad_id = ray.get(self.trainers.lead.pad_token_id.remote(), timeout=t.actor_start_timeout_s)
        # The engines hold model.dtype; with "auto" (fp32 on CPU, bf16 on GPU) fp32 is shipped, which either casts.
        self.engine_dtype = {"bfloat16": "bfloat16", "float16": "float16"}.get(cfg.model.dtype, "float32")
        # rewards and the held-out accuracy in the verifiers' strict training mode unless verifiers.strict is off
        self.verifier = VerifierPool(workers=t.verifier_workers, timeout_s=t.verifier_timeout_s,
                                     strict=cfg.verifiers.strict).__enter__()
        self._sync()  # every worker starts from the trainer's exact weights and version
        self.pending: deque[PendingBatch] = deque()
        self.checkpoints = [c.path for c in list_checkpoints(layout.checkpoints_dir(self.run_dir))]

    def _check_memory(self, model_path: str) -> None:
        """The trainer's GPU memory estimate against its GPU (the plan's NVML reading, else
        training.gpu_memory_gib); nothing on the CPU. The driver never touches CUDA itself."""
        from rlvr_core.devices.memory import GIB, check_at_start

        capacity = None
        if self.plan.trainer is not None:
            node = self.plan.topology.nodes[self.plan.trainer.node]
            capacity = int((node.gpu_memory_gib or self.config.training.gpu_memory_gib) * GIB)
        table = check_at_start(self.config, model_path, capacity)
        if table:
            log.info("%s", table)

    def _device_plan(self) -> "DevicePlan":
        """The run's device plan: the one in the run folder (the flow writes it before starting training),
        else one made now from this node's GPUs or the Ray cluster's, and saved there. A local plan whose
        training GPUs are no longer free (a resume on a busier node) is made again. This process then sees
        only its training GPUs (CUDA_VISIBLE_DEVICES, before Ray or CUDA start)."""
        from rlvr_core.devices import load_plan, plan_devices, render_plan, topology

        t = self.config.training
        plan = load_plan(self.run_dir)
        if plan is not None and not plan.topology.ray and plan.training_devices:
            usable = set(topology.local().nodes[0].gpus)
            if not {d.gpu for d in plan.training_devices} <= usable:
                self._note(f"the device plan's training GPUs {plan.cuda_visible_devices()} are not all free now "
                           f"(usable: {sorted(usable)}); planning again")
                plan = None
        if plan is None:
            if t.ray_address or os.environ.get("RAY_ADDRESS") or os.environ.get("RLVR_RAY_ADDRESS"):
                from rlvr_core.grpo.cluster import connect_ray

                connect_ray(t.ray_address)  # join now (its workers' logs reach this process): its GPUs are the plan's
            plan = plan_devices(self.config, topology.discover(None))
            plan.save(self.run_dir)
        plan.apply_to_environment(os.environ)
        if plan.cuda_visible_devices() is not None:  # no Ray: other runs' evaluations must keep off these GPUs
            from rlvr_core.devices.gpu_locks import hold_gpus

            self.held.enter_context(hold_gpus([d.gpu for d in plan.training_devices]))
        log.info("%s", render_plan(plan))
        return plan

    def _start_point(self) -> "CheckpointInfo | None":
        """The checkpoint to continue from (None: step 0), with the trace cut back to match it."""
        from rlvr_core.rundir.checkpoints import latest_resumable_checkpoint

        checkpoint = latest_resumable_checkpoint(layout.checkpoints_dir(self.run_dir)) if self.resume else None
        if checkpoint is None:
            dropped = sum(self.trace.truncate_after(-1).values())
            if self.resume:
                self._note(f"--resume {self.run_dir}: no complete checkpoint yet (the run stopped before its first "
                           f"one); restarting from step 0 and dropping {dropped} trace rows of the stopped attempt")
            elif dropped:
                self._note(f"{self.run_dir}: dropped {dropped} trace rows of an earlier attempt; starting at step 0")
            return None
        dropped = sum(self.trace.truncate_after(checkpoint.step).values())
        self._note(f"--resume {self.run_dir}: continuing from {checkpoint.name} (step {checkpoint.step}); "
                   f"dropped {dropped} trace rows written after it")
        return checkpoint

    def _note(self, message: str) -> None:
        log.warning(message)
        self.events.append(message)

    # -- the loop ---------------------------------------------------------------------------------------------
    def run(self, hooks: list, step_hooks: list) -> TrainResult:
        cfg, t = self.config, self.config.training
        self._setup()
        if self.step == 0 and t.eval_every:
            accuracy, seconds = self._evaluate()
            record = {"step": 0, "trainer_version": 0, "heldout_accuracy": accuracy, "seconds": {"eval": seconds}}
            self.trace.append(layout.TRACE, [record])
        final = None
        while self.step < t.max_steps:
            record = self._train_one_step()
            if t.eval_every and (self.step % t.eval_every == 0 or self.step == t.max_steps):
                record["heldout_accuracy"], record["seconds"]["eval"] = self._evaluate()
            self.trace.append(layout.TRACE, [record])
            for hook in step_hooks:
                hook(record)
            if self.step % cfg.checkpointing.every_steps == 0 or self.step == t.max_steps:
                self.trace.sync()  # the rows of every step up to this one are durable before its checkpoint
                final = self._checkpoint()
            self._announce(hooks, wait=False)
            if self.step % t.plot_every == 0 or self.step == t.max_steps:
                self._write_summaries()
        self._announce(hooks, wait=True)
        self._write_summaries()
        self.summaries.wait()
        return TrainResult(run_dir=self.run_dir, final_checkpoint=final, steps=self.step, trainer_version=self.version,
                           heldout=list(self.heldout_history), worker_restarts=sum(self.pool.restarts),
                           events=[*self.events, *self.pool.events])

    def _train_one_step(self) -> dict[str, Any]:
        cfg, t = self.config, self.config.training
        started = time.perf_counter()
        self.step += 1
        self._fill_pending()
        batch = self.pending.popleft()
        outputs = self.pool.collect(batch.requests)
        generated = time.perf_counter()
        groups = self._groups(batch, outputs)
        self._verify(groups)
        verified = time.perf_counter()
        split = split_by_staleness(groups, self.version, t.max_staleness)
        self.stream.requeue([g.position for g in split.stale])
        judged, unjudged = split_unjudged(split.fresh)
        kept = filter_groups(judged, filter_zero_variance=cfg.grpo.filter_zero_variance)
        arrays = build_train_batch(kept.groups, self.algorithm, max_new_tokens=cfg.sampling.max_new_tokens,
                                   pad_token_id=self.pad_id, skip_overlong=cfg.grpo.skip_overlong)
        update = self.trainers.submit_train_step(arrays, [g.worker for g in kept.groups])
        self._fill_pending(training_now=True)  # generation for later steps overlaps this update
        self._log_samples(groups)  # written while the trainer updates
        self.version += 1
        metrics = self.trainers.train_metrics(update, self.version)
        trained = time.perf_counter()
        if self.step % t.sync_every == 0 or self._eval_due() or self.step == t.max_steps:
            spot = self._sync()
        else:
            spot = None
        synced = time.perf_counter()
        rollouts = [r for g in groups for r in g.rollouts]
        rewards = [r.reward for r in rollouts]
        mean = sum(rewards) / len(rewards)
        record = {
            "step": self.step, "trainer_version": self.version,
            "reward_mean": mean, "reward_std": (sum((x - mean) ** 2 for x in rewards) / len(rewards)) ** 0.5,
            "pass_rate": sum(r.status == "correct" for r in rollouts) / len(rollouts),
            **metrics,
            "staleness": {str(k): v for k, v in sorted(split.histogram.items())},
            "stale_dropped": sum(len(g.rollouts) for g in split.stale),
            "error_dropped": sum(len(g.rollouts) for g in unjudged),
            "zero_variance_dropped": kept.zero_variance_dropped,
            "overlong": sum(r.finish_reason == "length" for r in rollouts),
            "samples": len(rollouts),
            "tokens": sum(len(r.token_ids) for r in rollouts),
            "completion_len_mean": sum(len(r.token_ids) for r in rollouts) / len(rollouts),
            "worker_restarts": sum(self.pool.restarts),
            "sync_logprob_gap": spot,
            "seconds": {"generate": generated - started, "verify": verified - generated,
                        "train": trained - verified, "sync": synced - trained, "total": synced - started},
        }
        return record

    def _record_sandbox(self, datasets: list[str]) -> None:
        """run.json "sandbox" and the log: the guarantees (and lacks) of the sandbox this run's code rewards use,
        so a user knows what the run they started is protected against. Only when a dataset is graded by code."""
        from rlvr_core.rundir import create
        from rlvr_core.data.registry import resolve
        from rlvr_core.sandbox import sandbox_guarantees

        if any(resolve(name).source.verifier == "code" for name in datasets):
            create.update_run_json(self.run_dir, sandbox=sandbox_guarantees())

    def _record_cluster(self) -> None:
        """traces/ray_cluster.json: which Ray cluster this run used (joined or its own) and its nodes, and the
        same in the log, so a multi-node run can be checked against the cluster it was meant for."""
        import ray

        nodes = sorted(n["NodeID"] for n in ray.nodes() if n.get("Alive"))
        record = {"gcs_address": ray.get_runtime_context().gcs_address, "joined_existing": not self.owns_ray,
                  "nodes": nodes, "resources": ray.cluster_resources()}
        path = layout.trace_path(self.run_dir, layout.RAY_CLUSTER)
        path.parent.mkdir(parents=True, exist_ok=True)
        write_json_atomic(path, record)
        log.info("Ray: %s cluster at %s, %d node(s)", "joined the" if not self.owns_ray else "started a private",
                 record["gcs_address"], len(nodes))

    def _eval_due(self) -> bool:
        t = self.config.training
        return bool(t.eval_every) and self.step % t.eval_every == 0

    def _fill_pending(self, training_now: bool = False) -> None:
        """Submit batches for upcoming steps while the staleness bound allows (see driver.py).

        Colocated, a generation sees every update submitted before it (an actor runs its calls in order), so
        its version is the number of updates submitted, the one in flight included: with `max_staleness: 0`
        the next step's generation is queued right behind the update, and the replicas start it without
        waiting for the driver to read the update's result.
        """
        t = self.config.training
        if t.shares_gpu and (training_now or self.pending):
            return  # one GPU: the engine sleeps while the trainer steps, so nothing generates ahead
        if t.colocated:
            rollout_version = self.version + (1 if training_now else 0)
        else:
            rollout_version = self.pool.weights[1] if self.pool.weights else 0
        while True:
            target = self.step + len(self.pending) + (1 if training_now else 0)
            if target > t.max_steps or (target - 1) - rollout_version > t.max_staleness:
                return
            self.pending.append(self._submit(target))
            if t.shares_gpu:
                return

    def _submit(self, step: int) -> PendingBatch:
        """Requests for `step`'s prompts, with the stop strings and per-sample seeds of `sampling.py`."""
        cfg = self.config
        s, workers, template = cfg.sampling, cfg.training.generators, cfg.data.prompt_template
        items = self.stream.take(s.prompts_per_step)
        requests = []
        for slot in range(workers):
            # Problems of a multi-turn dataset are played as episodes by the worker (their environment renders
            # the conversation, so `prompt_template` does not apply); the others are one generation per prompt.
            for method, stop, chunk in plan_requests(template, items[slot::workers]):
                params = {"max_new_tokens": s.max_new_tokens, "temperature": s.temperature, "top_p": s.top_p,
                          "n": s.group_size, "stop": stop}
                positions = [position for position, _ in chunk]
                if method == "generate":
                    params["seeds"] = sample_seeds(cfg.run.seed, step, positions, s.group_size)
                    prompts = [training_prompt(template, p) for _, p in chunk]
                else:
                    params["seed"] = episode_seed(cfg.run.seed, step, positions)
                    prompts = [p for _, p in chunk]
                requests.append(self.pool.submit(slot, prompts, params, tag=chunk, method=method))
        return PendingBatch(step=step, requests=requests, submitted_at=time.perf_counter(),
                            positions=[position for position, _ in items])

    def _groups(self, batch: PendingBatch, outputs: list[list[dict[str, Any]]]) -> list[Group]:
        n = self.config.sampling.group_size
        groups = []
        for request, gens in zip(batch.requests, outputs):
            for k, (position, problem) in enumerate(request.tag):
                rollouts = [Rollout(prompt_token_ids=g["prompt_token_ids"], token_ids=g["token_ids"],
                                    logprobs=g["logprobs"], text=g["text"], finish_reason=g["finish_reason"],
                                    weight_version=g["weight_version"], loss_mask=g.get("loss_mask"),
                                    episode=g.get("episode")) for g in gens[k * n:(k + 1) * n]]
                groups.append(Group(position=position, problem=problem, rollouts=rollouts, worker=request.slot))
        return groups

    def _verify(self, groups: list[Group]) -> None:
        pairs = [(r.text, g.problem) for g in groups for r in g.rollouts]
        scores = iter(self.verifier.verify_batch(pairs))
        for g in groups:
            for r in g.rollouts:
                score = next(scores)
                r.reward, r.status = score.reward, score.status

    def _sync(self) -> float | None:
        t = self.config.training
        if t.colocated:  # the generators are the trainers, whose versions and weights train_metrics checked
            self.pool.weights = (None, self.version)
        else:  # shipped in the engine's dtype
            self.pool.sync(self.trainers.lead.get_weights.remote(self.engine_dtype), self.version)
        if not t.verify_sync_logprobs:
            return None
        prompts = [training_prompt(self.config.data.prompt_template, p)
                   for p in (self.heldout or [self.stream.problem(0)])[:SPOT_CHECK_PROMPTS]]
        return self.pool.spot_check(self.trainers.lead, prompts, self.config.sampling.max_new_tokens,
                                    t.sync_logprob_tolerance)

    def _evaluate(self) -> tuple[float, float]:
        """Held-out greedy accuracy of the weights the rollout workers hold (synced to the trainer's), the set
        split across the workers; a multi-turn held-out set is played as greedy episodes, tools included."""
        started = time.perf_counter()
        cfg = self.config
        params = {"max_new_tokens": cfg.sampling.max_new_tokens, "temperature": 0.0}
        multi_turn = bool(self.heldout) and environment_for(self.heldout[0]) is not None
        if not multi_turn:  # one dataset (training.eval_dataset), so one set of stop strings
            params["stop"] = stop_strings(cfg.data.prompt_template, source_of(self.heldout[0]))
        size = -(-len(self.heldout) // self.pool.workers)  # consecutive shares, one per worker
        shares = [self.heldout[start:start + size] for start in range(0, len(self.heldout), size)]
        requests = [self.pool.submit(slot, share if multi_turn else
                                     [training_prompt(cfg.data.prompt_template, p) for p in share], params,
                                     method="episodes" if multi_turn else "generate")
                    for slot, share in enumerate(shares)]
        gens = [g for out in self.pool.collect(requests) for g in out]
        scores = self.verifier.verify_batch([(g["text"], p) for g, p in zip(gens, self.heldout)])
        accuracy = sum(s.status == "correct" for s in scores) / len(scores)
        self.heldout_history.append((self.step, accuracy))
        return accuracy, time.perf_counter() - started

    def _log_samples(self, groups: list[Group]) -> None:
        rows = [{"step": self.step, "position": g.position, "problem_id": g.problem.id, "sample": i, "text": r.text,
                 "reward": r.reward, "status": r.status, "weight_version": r.weight_version,
                 "finish_reason": r.finish_reason, "tokens": len(r.token_ids),
                 **({} if r.episode is None else {"trained_tokens": sum(r.loss_mask or ()), "episode": r.episode})}
                for g in groups for i, r in enumerate(g.rollouts)]
        self.trace.append(layout.ROLLOUTS, rows)
        shown = self.config.training.samples_per_step
        self.trace.append(layout.SAMPLES, [
            {"step": self.step, "prompt": g.problem.prompt, "answer": g.problem.answer,
             "completion": g.rollouts[0].text, "reward": g.rollouts[0].reward} for g in groups[:shown]])

    def _checkpoint(self) -> str:
        """Write this step's checkpoint (the trainer commits it in the background); returns the path it will have."""
        import ray

        cfg = self.config
        # In the order they were drawn (the requests hold them by worker), so a resume deals them out as before.
        in_flight = [position for b in self.pending for position in b.positions]
        driver = {"step": self.step, "data": self.stream.state(in_flight)}
        return ray.get(self.trainers.lead.publish.remote(
            str(layout.checkpoints_dir(self.run_dir)), step=self.step, config_hash=cfg.config_hash(), driver_state=driver,
            keep_last=cfg.checkpointing.keep_last, weights_dtype=self.engine_dtype,
            keep_optimizer=cfg.checkpointing.keep_optimizer))

    def _announce(self, hooks: list, *, wait: bool) -> None:
        """Checkpoints whose background commit has finished (with `wait`: all): listed, and announced to the
        hooks (the CLI prints the `rlvr.checkpoint.saved` event line the flow turns into a Prefect event)."""
        import ray

        for info in ray.get(self.trainers.lead.published.remote(wait)):
            self.checkpoints.append(info["path"])
            event = {"event": "rlvr.checkpoint.saved", "run": self.run_dir.name, "path": info["path"],
                     "step": info["step"], "content_hash": info["content_hash"],
                     "trainer_version": info["trainer_version"]}
            for hook in hooks:
                hook(event)

    def _write_summaries(self) -> None:
        """The curve and RESULTS.md from the trace so far, drawn beside the loop (`BackgroundSummaries`)."""
        self.summaries.submit(read_trace(self.run_dir), checkpoints=self.checkpoints,
                              events=[*self.events, *self.pool.events])

