"""`webextract`: extract data from generated web pages with Python and BeautifulSoup, through tools (docs/WEBEXTRACT.md).

Files follow the steps: `vocab.py`, `chrome.py` (site templates, class-name
styles, bulk, tag soup) and `page.py` build realistic HTML; `archetypes/`
generate tasks by family; `solvers/` compute every gold from the HTML alone
(and read lazily, to test the decoys); `task.py` ties them together
(registry, `build_task`); `dataset.py` turns seeds into `Problem` rows for
the `train`, `eval` and `bench` splits; `protocol.py` is the tool-call and
final-answer format; `tools.py` runs `run_python` (sandboxed, pooled) and
`navigate`; `env.py` is one episode's environment and its ledger of what
ran; `rollout.py` runs episodes for the evaluation runner; `verifier.py` and
`rubric.py` score an episode; `oracle.py` is the scripted reference policy
and `scripted.py` the scripted cheating policies.
"""
