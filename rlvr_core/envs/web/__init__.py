"""`webextract`: extract data from generated shop sites with Python and BeautifulSoup, through tools.

Files follow the steps: `vocab.py` and `page.py` build realistic HTML;
`archetypes/` generate tasks by family; `solvers.py` computes every gold from
the HTML alone; `task.py` ties them together (registry, `build_task`);
`dataset.py` turns seeds into `Problem` rows for the `train` and `bench`
splits; `protocol.py` is the tool-call and final-answer format; `tools.py`
runs `run_python` (sandboxed) and `navigate`; `env.py` is one episode's
environment; `rollout.py` runs episodes for the evaluation runner; `oracle.py`
is the scripted reference policy. The rubric is
`rlvr_core/envs/web/verifier.py`.
"""
