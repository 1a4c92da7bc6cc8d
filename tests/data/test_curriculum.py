"""Curriculum order files from any store URI, and reordering by them."""

from __future__ import annotations

import json

import pytest

from rlvr_core.data.curriculum import apply_curriculum, read_order_file
from rlvr_core.problem import Problem
from rlvr_core.storage import Store


def problems(source: str, ids: list[str]) -> list[Problem]:
    return [Problem(id=i, source=source, prompt=i, answer="1", verifier="math") for i in ids]


def test_listed_problems_come_first_in_file_order_the_rest_keep_theirs() -> None:
    ps = problems("s", ["a", "b", "c", "d"])
    assert [p.id for p in apply_curriculum(ps, ["c", "a"])] == ["c", "a", "b", "d"]


def test_unknown_ids_are_named_in_the_error() -> None:
    with pytest.raises(ValueError, match=r"curriculum order.json: 2 id\(s\) not found: 'zz', 'yy'"):
        apply_curriculum(problems("s", ["a"]), ["a", "zz", "yy"], origin="order.json")


def test_bare_id_shared_by_two_sources_must_be_qualified() -> None:
    ps = problems("gsm8k", ["1", "2"]) + problems("math", ["1"])
    with pytest.raises(ValueError, match="match several sources: '1'"):
        apply_curriculum(ps, ["1"])
    ordered = apply_curriculum(ps, ["math::1", "gsm8k::2"])
    assert [(p.source, p.id) for p in ordered] == [("math", "1"), ("gsm8k", "2"), ("gsm8k", "1")]


def test_order_file_formats_json_and_text(tmp_path) -> None:
    (tmp_path / "order.json").write_text(json.dumps(["b", "a"]))
    (tmp_path / "order.txt").write_text("# easiest first\nb\n\na\n")
    assert read_order_file(str(tmp_path / "order.json")) == ["b", "a"]
    assert read_order_file(str(tmp_path / "order.txt")) == ["b", "a"]
    (tmp_path / "bad.json").write_text('{"order": ["a"]}')
    with pytest.raises(ValueError, match="JSON list of ids"):
        read_order_file(str(tmp_path / "bad.json"))


def test_order_file_from_an_s3_uri(s3_endpoint, s3_bucket) -> None:
    Store(f"s3://{s3_bucket}", endpoint_url=s3_endpoint).write_json("curricula/easy.json", ["c", "b"])
    order = read_order_file(f"s3://{s3_bucket}/curricula/easy.json", endpoint_url=s3_endpoint)
    assert [p.id for p in apply_curriculum(problems("s", ["a", "b", "c"]), order)] == ["c", "b", "a"]
