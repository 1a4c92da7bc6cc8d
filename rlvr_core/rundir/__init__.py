"""The run folder: one package owns its names, how files in it are written, and the protocols that share it.

- `layout`: every name in a run folder and the path functions (nothing else spells one);
- `atomic`: the one atomic, durable file replacement, `fsync_dir`, `pid_alive`;
- `create`: a new run folder with its resolved config, `run.json` and git patches;
- `checkpoints`: publishing checkpoints so a reader never sees half of one;
- `evals`: where an evaluation's results go, which are done, which checkpoints still wait;
- `claims`: one evaluation per folder, however many processes ask;
- `markers`: the `@@rlvr-event` / `@@rlvr-progress` lines the trainer prints;
- `sync`: copying a growing run folder to the store.
"""
