"""The typed fast path of Anthropic's request decoder builds exactly what the general path builds.

It reads recorded requests, and what ``convert`` writes for Anthropic (read
back for the preflight): both are checked here against the general decoder.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from corpus import corpus, curated, needs_corpus
from hypothesis import given, settings
from hypothesis import strategies as st
from test_direct import PERF, requests, usual_requests

import chatcodec as cc
from chatcodec import providers
from chatcodec.providers.anthropic import decode_request
from chatcodec.providers.anthropic._decode import decode_request as general_request
from chatcodec.providers.anthropic._fastreq import fast_request

FAMILIES = providers.NAMES


def same(body: bytes) -> bool:
    """Whether the fast path read ``body``; it gives what the general path gives."""
    fast = fast_request(body)
    try:
        general = general_request(body)
    except cc.ChatCodecError:
        assert fast is None
        return False
    assert decode_request(body) == general
    if fast is None:
        return False
    assert fast == general
    return True


def every_request() -> list[Any]:
    params = [
        pytest.param(family, param.values[0], id=f"{family}:{param.id}")
        for family in FAMILIES
        for param in corpus(family, "request")
    ]
    return needs_corpus(params, width=2)


class TestRecorded:
    """Recorded Anthropic requests."""

    @pytest.mark.parametrize("path", needs_corpus(corpus("anthropic", "request")))
    def test_corpus(self, path: Path) -> None:
        same(path.read_bytes())

    @pytest.mark.parametrize("path", curated("anthropic", "request"))
    def test_curated(self, path: Path) -> None:
        same(path.read_bytes())


class TestReadBack:
    """What the encoder writes from every family's requests, as convert reads it back."""

    @pytest.mark.parametrize(("family", "path"), every_request())
    def test_corpus(self, family: str, path: Path) -> None:
        for model, max_tokens in ((None, None), ("m", 1024)):
            try:
                out, _ = cc.convert(
                    path.read_bytes(),
                    source=family,
                    target="anthropic",
                    model=model,
                    max_tokens=max_tokens,
                    check=False,
                )
            except cc.ChatCodecError:
                continue
            same(out)

    @pytest.mark.parametrize("size", ["small", "medium", "large"])
    def test_benchmark_requests_outside_the_direct_path(self, size: str) -> None:
        # A setting the direct path does not take sends them the general way.
        body = json.loads((PERF / f"{size}.json").read_bytes())
        body["seed"] = 7
        out, report = cc.convert(
            json.dumps(body).encode(), source="openai", target="anthropic", max_tokens=1024
        )
        assert [loss.path for loss in report.losses][-1] == "$.seed"
        assert same(out)

    @settings(max_examples=200, deadline=None)
    @given(body=st.one_of(requests(), usual_requests()), max_tokens=st.sampled_from([None, 64]))
    def test_generated(self, body: bytes, max_tokens: int | None) -> None:
        try:
            out, _ = cc.convert(
                body, source="openai", target="anthropic", max_tokens=max_tokens, check=False
            )
        except cc.ChatCodecError:
            return
        same(out)


class TestDeclines:
    """What the general path marks or keeps is left to it."""

    @pytest.mark.parametrize(
        "body",
        [
            b'{"messages":[{"role":"user","content":"a"},{"role":"user","content":"b"}]}',
            b'{"system":"","messages":[{"role":"user","content":"a"}]}',
            b'{"messages":[{"role":"user","content":[{"type":"text","text":"a"},'
            b'{"type":"tool_result","tool_use_id":"t","content":"r"}]}]}',
            b'{"messages":[{"role":"user","content":"a","cache":1}]}',
            b'{"messages":[{"role":"user","content":"a"}],"tools":[]}',
            b'{"messages":[{"role":"user","content":"a"}],"tools":[{"name":"f",'
            b'"description":"","input_schema":{"type":"object"},"strict":false}]}',
            b'{"messages":[{"role":"user","content":"a"}],"tools":[{"name":"f f",'
            b'"input_schema":{"type":"object"}}]}',
            b'{"messages":[{"role":"user","content":"a"}],"metadata":{"user_id":"u"}}',
            b"[]",
            b"{",
        ],
    )
    def test_left_to_the_general_path(self, body: bytes) -> None:
        assert fast_request(body) is None
        assert not same(body)

    @pytest.mark.parametrize(
        "body",
        [
            b'{"model":"m","max_tokens":9,"system":[{"type":"text","text":"s"}],'
            b'"messages":[{"role":"user","content":[{"type":"text","text":""}]},'
            b'{"role":"assistant","content":[{"type":"tool_use","id":"t","name":"f",'
            b'"input":{"a": 1}},{"type":"text","text":"x"}]},{"role":"user","content":'
            b'[{"type":"tool_result","tool_use_id":"t","content":"r","is_error":false}]}],'
            b'"tools":[{"name":"f","description":"","input_schema":{"type":"object"}}],'
            b'"tool_choice":{"type":"any","disable_parallel_tool_use":true}}',
            b'{"messages":[{"role":"assistant","content":[{"type":"thinking","thinking":"t",'
            b'"signature":"s"},{"type":"text","text":"a"}]}],"stop_sequences":["x"]}',
        ],
    )
    def test_hints_as_the_general_path_writes_them(self, body: bytes) -> None:
        assert same(body)
