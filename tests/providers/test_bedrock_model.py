"""Encoded Converse requests against Amazon's own request shape (botocore's service model).

botocore ships the ``bedrock-runtime`` service model as data; its
``ParamValidator`` checks a request dict against the ``Converse`` input shape,
as boto3 does before it sends anything. No network is used.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from corpus import corpus, curated, needs_corpus

from chatcodec import Request, assistant, convert, tool_call, tool_result, user
from chatcodec.providers import NAMES, bedrock
from official import _CONVERSE, _params, validate


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
