"""The contract every provider codec keeps, whatever it is given.

- Any bytes: decoding returns a value or raises one of chatcodec's errors
  (never a ``KeyError``, ``TypeError``, ``AttributeError``...).
- Any canonical request or response, from any source: encoding returns bytes
  that decode again with the same codec, and losses name a path and a reason.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import msgspec
import pytest
from corpus import CORPUS
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import chatcodec as cc
from chatcodec import providers
from corpus_root import HAVE_CORPUS, NO_CORPUS

NAMES = providers.NAMES

# Keys the four families use, so that random bodies reach deep into the decoders.
KEYS = [
    *("model", "messages", "role", "content", "type", "text", "tool_calls", "id", "function"),
    *("name", "arguments", "tools", "parameters", "tool_choice", "choices", "message", "index"),
    *("finish_reason", "usage", "prompt_tokens", "system", "input", "tool_use_id", "tool_result"),
    *("thinking", "signature", "input_schema", "stop_reason", "max_tokens", "contents", "parts"),
    *("functionCall", "function_call", "args", "functionResponse", "response", "candidates"),
    *("finishReason", "usageMetadata", "systemInstruction", "inlineData", "mimeType", "data"),
    *("thought", "thoughtSignature", "generationConfig", "tool_name", "images", "done"),
    *("done_reason", "eval_count", "options", "error", "source", "refusal", "is_error"),
    *("image_url", "url", "functionDeclarations", "toolConfig", "reasoning_content", "format"),
]
ROLES = ["user", "assistant", "system", "developer", "tool", "model", "function", "bogus"]
TYPES = ["text", "image", "tool_use", "tool_result", "thinking", "function", "image_url", "x"]

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 3),
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from(["", "{}", '{"a":1}', "[", "x", *ROLES, *TYPES]),
)
json_values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(st.sampled_from(KEYS), inner, max_size=6),
    ),
    max_leaves=40,
)
bodies = st.dictionaries(st.sampled_from(KEYS), json_values, max_size=8)


def decode_only_our_errors(codec: str, method: str, body: bytes) -> Any:
    decode = getattr(providers.get(codec), method)
    try:
        return decode(body)
    except cc.ChatCodecError:
        return None


class TestAnyBytes:
    """Decoders raise only chatcodec's errors, whatever they are given."""

    @pytest.mark.parametrize("codec", NAMES)
    @pytest.mark.parametrize("method", ["decode_request", "decode_response"])
    @settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(body=bodies)
    def test_random_bodies(self, codec: str, method: str, body: dict[str, Any]) -> None:
        value = decode_only_our_errors(codec, method, msgspec.json.encode(body))
        if value is not None:
            # What decodes also encodes and decodes again.
            encode = getattr(providers.get(codec), method.replace("decode", "encode"))
            again = getattr(providers.get(codec), method)(encode(value))
            assert type(again) is type(value)

    @pytest.mark.parametrize("codec", NAMES)
    @pytest.mark.parametrize(
        "body", [b"", b"[]", b"null", b"1", b'"x"', b"{", b'{"a":1}x', b"\xff", b"{}" * 2]
    )
    def test_not_an_object(self, codec: str, body: bytes) -> None:
        for method in ("decode_request", "decode_response"):
            with pytest.raises(cc.ChatCodecError):
                getattr(providers.get(codec), method)(body)

    @pytest.mark.parametrize("codec", NAMES)
    def test_json_test_suite(self, codec: str) -> None:
        suite = CORPUS / "jsontestsuite" / "test_parsing"
        if not suite.exists():
            pytest.skip(f"JSONTestSuite is not at {suite}")
        for path in sorted(suite.glob("*.json")):
            data = path.read_bytes()
            for method in ("decode_request", "decode_response"):
                if path.name.startswith("n_"):
                    with pytest.raises(cc.ChatCodecError):
                        getattr(providers.get(codec), method)(data)
                else:
                    decode_only_our_errors(codec, method, data)

    @pytest.mark.parametrize("codec", NAMES)
    def test_deep_nesting(self, codec: str) -> None:
        body = b'{"messages":' + b"[" * 100_000 + b"]" * 100_000 + b"}"
        with pytest.raises(cc.ChatCodecError):
            providers.get(codec).decode_request(body)


def every_kind_request() -> cc.Request:
    """A request with every canonical kind, some from other providers."""
    call = cc.tool_call("call.1/x", "get_weather", {"city": "Paris"})
    return cc.Request(
        (
            cc.system("Be brief."),
            cc.developer("Answer in French."),
            cc.user(
                [
                    "Look:",
                    cc.ImagePart(url="https://example.com/cat.png", detail="high"),
                    cc.ImagePart.from_bytes(b"\x89PNG\r\n\x1a\n", "image/png"),
                    cc.AudioPart.from_bytes(b"RIFF", "audio/wav"),
                    cc.FilePart(data="JVBERi0=", media_type="application/pdf", filename="a.pdf"),
                    cc.FilePart(file_id="file_1"),
                    cc.OpaquePart("nobody", msgspec.Raw(b'{"type":"mystery"}')),
                ],
                metadata={"seen": True},
            ),
            cc.AssistantMessage(
                (
                    cc.ReasoningPart("thinking...", signature="sig", provider="someone"),
                    cc.ReasoningPart(redacted="opaque", provider="someone"),
                    cc.TextPart("Let me check."),
                    cc.RefusalPart("no"),
                    cc.OpaquePart("nobody", msgspec.Raw(b'{"type":"server_tool_use"}')),
                ),
                (call,),
                (cc.InvalidToolCall("call_bad", "get_time", "{not json", "not valid JSON"),),
            ),
            cc.ToolMessage("call.1/x", (cc.TextPart("18C"), cc.ImagePart(url="https://x/y.png"))),
            cc.ToolMessage("call_bad", "bad arguments", is_error=True),
            cc.UserMessage("Thanks", extras={"somewhere": {"k": 1}}),
        ),
        model="m",
        tools=(
            cc.ToolDefinition(
                "get_weather",
                "Weather",
                {"type": "object", "properties": {"city": {"type": "string"}}},
            ),
            cc.ProviderTool("nobody", msgspec.Raw(b'{"type":"web_search"}')),
        ),
        tool_choice=cc.ToolChoice("tool", "get_weather"),
        parallel_tool_calls=False,
        max_tokens=100,
        temperature=0.5,
        top_p=0.9,
        stop=("END",),
        response_format=cc.ResponseFormat("json_schema", "answer", {"type": "object"}, True),
        extras={"nobody": {"x": 1}, "seed": 3},
    )


class TestAnyCanonical:
    """Encoders take canonical values from any source and report what they drop."""

    @pytest.mark.parametrize("codec", NAMES)
    def test_every_kind_request(self, codec: str) -> None:
        losses: list[cc.Loss] = []
        module = providers.get(codec)
        out = module.encode_request(every_kind_request(), losses=losses)
        again = module.decode_request(out)
        assert again.messages
        for loss in losses:
            assert loss.path.startswith("$")
            assert loss.reason
        paths = [loss.path for loss in losses]
        assert "$.extras.nobody" in paths or "$.extras.nobody.x" in paths
        assert any("content" in path for path in paths)  # the mystery opaque part
        # A plain encode reports nothing and gives the same bytes.
        assert module.encode_request(every_kind_request()) == out

    @pytest.mark.parametrize("codec", NAMES)
    def test_response(self, codec: str) -> None:
        response = cc.Response(
            (
                cc.Choice(
                    cc.AssistantMessage(
                        (cc.ReasoningPart("hmm"), cc.TextPart("Hi")),
                        (cc.tool_call("call_1", "f", {}),),
                    ),
                    cc.FinishReason.TOOL_CALLS,
                ),
            ),
            id="r1",
            model="m",
            usage=cc.Usage(3, 4, 7, cached_tokens=1, reasoning_tokens=2),
        )
        module = providers.get(codec)
        again = module.decode_response(module.encode_response(response))
        assert again.tool_calls[0].name == "f"
        assert again.usage is not None
        assert again.usage.prompt_tokens == 3
        assert again.usage.completion_tokens == 4

    @pytest.mark.parametrize("codec", NAMES)
    def test_empty_request(self, codec: str) -> None:
        module = providers.get(codec)
        module.decode_request(module.encode_request(cc.Request()))
        assert module.check_request(cc.Request())  # no messages: a provider refuses it


def test_corpus_dir_is_where_the_tests_say() -> None:
    assert isinstance(CORPUS, Path)
    if not HAVE_CORPUS:
        pytest.skip(NO_CORPUS)
    json.loads((CORPUS / "jsontestsuite" / "test_parsing" / "y_object.json").read_bytes())
