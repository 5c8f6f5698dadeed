"""Encoded Converse requests against Amazon's own request shape (botocore's service model).

botocore ships the ``bedrock-runtime`` service model as data; its
``ParamValidator`` checks a request dict against the ``Converse`` input shape,
as boto3 does before it sends anything. No network is used.
"""

from __future__ import annotations

import base64
import binascii
import json
from pathlib import Path
from typing import Any

import botocore.session
import pytest
from botocore.validate import ParamValidator
from corpus import corpus, curated, needs_corpus

from chatcodec import Request, assistant, convert, tool_call, tool_result, user
from chatcodec.providers import NAMES, bedrock

_MODEL = botocore.session.get_session().get_service_model("bedrock-runtime")
_CONVERSE = _MODEL.operation_model("Converse").input_shape
_VALIDATOR = ParamValidator()


def _params(shape: Any, value: Any) -> Any:
    """The wire JSON as boto3 takes it: blobs as bytes, not the base64 the JSON carries."""
    kind = shape.type_name
    if kind == "blob" and type(value) is str:
        try:
            return base64.b64decode(value)
        except binascii.Error:
            return value.encode()  # a payload the recording cut short: still bytes, as boto3 wants
    if (
        kind == "structure"
        and type(value) is dict
        and not getattr(shape, "is_document_type", False)
    ):
        members = shape.members
        return {
            key: _params(members[key], item) if key in members else item
            for key, item in value.items()
        }
    if kind == "list" and type(value) is list:
        return [_params(shape.member, item) for item in value]
    if kind == "map" and type(value) is dict:
        return {key: _params(shape.value, item) for key, item in value.items()}
    return value


def validate(body: bytes) -> list[str]:
    """botocore's complaints about a Converse body (none when Amazon's shape accepts it)."""
    params = _params(_CONVERSE, {"modelId": "m", **json.loads(body)})
    report = _VALIDATOR.validate(params, _CONVERSE)
    return report.generate_report().splitlines() if report.has_errors() else []


def _round(path: Path) -> bytes:
    return bedrock.encode_request(bedrock.decode_request(path.read_bytes()))


class TestServiceModel:
    """Every encoded request validates against botocore's Converse input shape."""

    @pytest.mark.parametrize("path", needs_corpus(corpus("bedrock", "request")))
    def test_corpus(self, path: Path) -> None:
        assert validate(_round(path)) == []

    @pytest.mark.parametrize("path", curated("bedrock", "request"))
    def test_curated(self, path: Path) -> None:
        assert validate(_round(path)) == []

    def test_built(self) -> None:
        call = tool_call("t1", "get_weather", {"city": "Paris"})
        request = Request(
            (user("Weather?"), assistant(tool_calls=[call]), tool_result("t1", "Sunny")),
            max_tokens=64,
            temperature=0.5,
        )
        assert validate(bedrock.encode_request(request)) == []

    def test_a_bad_body_is_refused(self) -> None:
        """The check can fail: a block kind Converse does not have."""
        body = b'{"messages":[{"role":"user","content":[{"picture":{}}]}]}'
        assert validate(body) != []

    def test_blobs_are_bytes(self) -> None:
        body = (
            b'{"messages":[{"role":"user","content":[{"image":{"format":"png",'
            b'"source":{"bytes":"iVBORw0K"}}}]}]}'
        )
        params = _params(_CONVERSE, json.loads(body))
        assert params["messages"][0]["content"][0]["image"]["source"]["bytes"] == b"\x89PNG\r\n"
        assert validate(body) == []


def _with_calls() -> list[Any]:
    return [
        pytest.param(codec, param.values[0], id=f"{codec}:{param.id}")
        for codec in NAMES
        if codec != "bedrock"
        for param in corpus(codec, "request", tool_calls=True)
    ]


@pytest.mark.parametrize(("source", "path"), needs_corpus(_with_calls(), width=2))
def test_converted_requests_validate(source: str, path: Path) -> None:
    """What every family's recorded requests with tool calls become is Amazon's shape."""
    out, _ = convert(path.read_bytes(), source=source, target="bedrock")
    assert validate(out) == []
