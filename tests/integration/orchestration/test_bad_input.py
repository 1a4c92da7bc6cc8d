"""A bad parameter fails the flow run with one line naming the field and the fix; a defect keeps its traceback."""

from __future__ import annotations

import pytest
from prefect import flow

from orchestration.bad_input import BadParameter, fails_cleanly


@flow
@fails_cleanly
def checked(value: int = 1) -> int:
    if value < 0:
        raise BadParameter(f"value={value} is negative. Fix: pass 0 or more")
    if value == 13:
        raise RuntimeError("a defect")
    return value * 2


def test_a_bad_parameter_ends_the_run_failed_with_its_message_alone(prefect_harness: str) -> None:
    state = checked(-1, return_state=True)
    assert state.is_failed()
    assert state.message == "value=-1 is negative. Fix: pass 0 or more"


def test_a_defect_still_raises_with_its_traceback(prefect_harness: str) -> None:
    with pytest.raises(RuntimeError, match="a defect"):
        checked(13)


def test_the_wrapped_flow_keeps_its_parameters_and_result(prefect_harness: str) -> None:
    assert checked.parameters.properties["value"]["default"] == 1
    assert checked(value=4) == 8


def test_train_and_eval_with_max_steps_zero_fails_on_the_field_before_any_work(prefect_harness: str,
                                                                             tmp_path) -> None:
    from flows.train_and_eval import train_and_eval

    state = train_and_eval("tiny-arith", [f"run.runs_dir={tmp_path}"], max_steps=0, return_state=True)
    assert state.is_failed() and "training.max_steps" in state.message and "\n" not in state.message.strip()
    assert not any(tmp_path.iterdir()), "no run folder for a config that cannot run"
