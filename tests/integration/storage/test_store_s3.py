"""S3-specific behaviour against a real HTTP endpoint: endpoint choice, dead endpoints, no secrets in errors."""

from __future__ import annotations

import time
import traceback

import boto3
import pytest

from rlvr_core import storage
from rlvr_core.storage import StorageError, Store, open_store
from tests.s3_server import FAKE_ENV


def test_objects_are_plain_s3_objects_visible_to_boto3(s3_endpoint: str, s3_bucket: str) -> None:
    Store(f"s3://{s3_bucket}/runs", endpoint_url=s3_endpoint).write_text("a/b.txt", "hello")
    client = boto3.client("s3", endpoint_url=s3_endpoint)
    body = client.get_object(Bucket=s3_bucket, Key="runs/a/b.txt")["Body"].read()
    assert body == b"hello"


def test_endpoint_comes_from_aws_endpoint_url_env(s3_endpoint, s3_bucket, monkeypatch) -> None:
    monkeypatch.setenv("AWS_ENDPOINT_URL", s3_endpoint)
    store = open_store(f"s3://{s3_bucket}")
    store.write_text("x.txt", "via env")
    assert store.endpoint_url == s3_endpoint
    assert store.read_text("x.txt") == "via env"


def test_dead_endpoint_fails_fast_with_a_clear_error_and_no_secret(s3_endpoint, dead_endpoint) -> None:
    store = Store("s3://some-bucket/prefix", endpoint_url=dead_endpoint)
    start = time.monotonic()
    with pytest.raises(StorageError) as err:
        store.write_bytes("model/weights.bin", b"data")
    elapsed = time.monotonic() - start
    message = str(err.value)
    assert "s3://some-bucket/prefix/model/weights.bin" in message
    assert dead_endpoint in message
    assert "check that the endpoint is up" in message
    assert elapsed < 15, f"a refused connection took {elapsed:.1f}s to fail"
    full = "".join(traceback.format_exception(err.value))
    assert FAKE_ENV["AWS_SECRET_ACCESS_KEY"] not in full
    assert FAKE_ENV["AWS_ACCESS_KEY_ID"] not in full


@pytest.mark.timeout(60)  # without the fix a write hangs forever
@pytest.mark.parametrize("operation", ["write", "read"])
def test_endpoint_that_accepts_but_never_replies_times_out(s3_endpoint, hung_endpoint, monkeypatch, operation) -> None:
    """Bounded by the read timeout, not hung forever (botocore's 100-continue wait had no timeout)."""
    monkeypatch.setattr(storage, "READ_TIMEOUT_S", 1)
    store = Store("s3://bucket", endpoint_url=hung_endpoint)
    start = time.monotonic()
    with pytest.raises(StorageError, match="Read timeout"):
        store.write_bytes("x.bin", b"data") if operation == "write" else store.read_bytes("x.bin")
    assert time.monotonic() - start < 15


def test_write_to_dead_endpoint_leaves_the_existing_object_untouched(s3_endpoint, s3_bucket, dead_endpoint) -> None:
    live = Store(f"s3://{s3_bucket}", endpoint_url=s3_endpoint)
    live.write_bytes("data.bin", b"previous")
    dead = Store(f"s3://{s3_bucket}", endpoint_url=dead_endpoint)
    with pytest.raises(StorageError):
        dead.write_bytes("data.bin", b"new")
    assert live.read_bytes("data.bin") == b"previous"
    assert live.list() == ["data.bin"]


def test_failing_producer_uploads_nothing(s3_endpoint, s3_bucket) -> None:
    store = Store(f"s3://{s3_bucket}", endpoint_url=s3_endpoint)
    store.write_bytes("data.bin", b"previous")

    def chunks():
        yield b"partial"
        raise RuntimeError("producer failed")

    with pytest.raises(RuntimeError, match="producer failed"):
        store.write_stream("data.bin", chunks())
    assert store.read_bytes("data.bin") == b"previous"


def test_missing_bucket_error_says_what_to_check(s3_endpoint) -> None:
    store = Store("s3://no-such-bucket-here", endpoint_url=s3_endpoint)
    with pytest.raises(StorageError, match="bucket does not exist.*check the path and that the bucket exists"):
        store.write_text("x.txt", "x")


def test_uri_without_bucket_is_rejected() -> None:
    with pytest.raises(StorageError, match="no bucket name"):
        Store("s3://")
