"""The Store contract, run identically against a local folder and an S3 endpoint."""

from __future__ import annotations

import pandas as pd
import pytest

from rlvr_core.storage import StorageError, Store


def test_bytes_text_json_round_trip(store: Store) -> None:
    store.write_bytes("a/b.bin", b"\x00\x01payload")
    store.write_text("a/c.txt", "héllo")
    store.write_json("d.json", {"k": [1, 2], "z": None})
    assert store.read_bytes("a/b.bin") == b"\x00\x01payload"
    assert store.read_text("a/c.txt") == "héllo"
    assert store.read_json("d.json") == {"k": [1, 2], "z": None}


def test_overwrite_replaces_content(store: Store) -> None:
    store.write_bytes("f", b"old content that is longer")
    store.write_bytes("f", b"new")
    assert store.read_bytes("f") == b"new"


def test_parquet_round_trip(store: Store) -> None:
    df = pd.DataFrame({"id": ["a", "b"], "score": [0.5, 1.0]})
    store.write_parquet("t/data.parquet", df)
    pd.testing.assert_frame_equal(store.read_parquet("t/data.parquet"), df)


def test_list_is_recursive_sorted_and_relative(store: Store) -> None:
    for path in ("x/2.txt", "x/sub/1.txt", "x/1.txt", "y.txt"):
        store.write_text(path, path)
    assert store.list("x") == ["x/1.txt", "x/2.txt", "x/sub/1.txt"]
    assert store.list() == ["x/1.txt", "x/2.txt", "x/sub/1.txt", "y.txt"]
    assert store.list("nothing-here") == []


def test_exists_and_delete(store: Store) -> None:
    store.write_text("dir/f.txt", "x")
    assert store.exists("dir/f.txt") and not store.exists("dir/g.txt")
    with pytest.raises(StorageError, match="recursive=True"):
        store.delete("dir")
    store.delete("dir", recursive=True)
    assert not store.exists("dir/f.txt")
    store.delete("never-existed")  # deleting nothing is fine


def test_put_dir_replaces_folder_and_get_dir_restores_it(store: Store, tmp_path) -> None:
    src = tmp_path / "ckpt"
    (src / "sub").mkdir(parents=True)
    (src / "model.bin").write_bytes(b"weights")
    (src / "sub" / "state.json").write_text("{}")
    store.write_text("ckpts/step-1/stale.txt", "from an earlier upload")
    store.put_dir(src, "ckpts/step-1")
    assert store.list("ckpts") == ["ckpts/step-1/model.bin", "ckpts/step-1/sub/state.json"]
    out = store.get_dir("ckpts/step-1", tmp_path / "restored")
    assert (out / "model.bin").read_bytes() == b"weights"
    assert (out / "sub" / "state.json").read_text() == "{}"


def test_missing_file_error_names_the_uri(store: Store) -> None:
    with pytest.raises(StorageError, match="missing.txt") as err:
        store.read_bytes("missing.txt")
    assert store.uri("missing.txt") in str(err.value)


def test_paths_cannot_escape_the_root(store: Store) -> None:
    with pytest.raises(StorageError, match="escapes the store root"):
        store.write_text("../outside.txt", "x")


def test_pickled_store_works_in_another_process_image(store: Store) -> None:
    """Ray and Prefect ship a Store to workers by pickling it."""
    import pickle

    store.write_text("p.txt", "shared")
    clone = pickle.loads(pickle.dumps(store))
    assert (clone.root, clone.endpoint_url) == (store.root, store.endpoint_url)
    assert clone.read_text("p.txt") == "shared"
