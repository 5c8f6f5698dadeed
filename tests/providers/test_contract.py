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
    def test_deep_nesting(self, codec: str) -> None:
        body = b'{"messages":' + b"[" * 100_000 + b"]" * 100_000 + b"}"
        with pytest.raises(cc.ChatCodecError):
            providers.get(codec).decode_request(body)


class TestConvertReadsBack:
    """What ``convert`` writes, the target's own decoder reads."""

    @pytest.mark.parametrize("kind", ["request", "response"])
    @settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(body=bodies, source=st.sampled_from(NAMES), target=st.sampled_from(NAMES))
    def test_random_bodies(self, kind: str, body: dict[str, Any], source: str, target: str) -> None:
        data = msgspec.json.encode(body)
        try:
            out, _ = cc.convert(data, source=source, target=target, kind=kind)  # type: ignore[arg-type]
        except cc.ChatCodecError:
            return
        getattr(providers.get(target), f"decode_{kind}")(out)


SUITE = Path(__file__).parents[1] / "data" / "jsontestsuite"
FULL_SUITE = CORPUS / "jsontestsuite" / "test_parsing"


def suite_files() -> list[Any]:
    """JSONTestSuite's parsing cases: the full suite when the corpus is there, else the copy."""
    folder = FULL_SUITE if FULL_SUITE.exists() else SUITE
    return [pytest.param(path, id=path.name) for path in sorted(folder.glob("*.json"))]


def every_decoder() -> dict[str, Any]:
    """Every decoder of whole documents: canonical (each top-level type, lenient) and family."""
    out: dict[str, Any] = {
        "decode(Message)": lambda data: cc.decode(data, type=cc.Message),
        "decode(list[Message])": lambda data: cc.decode(data, type=list[cc.Message]),
        "decode(Conversation)": lambda data: cc.decode(data, type=cc.Conversation),
        "decode_lenient(list[Message])": cc.decode_lenient,
        "decode_lenient(Message)": lambda data: cc.decode_lenient(data, type=cc.Message),
        "decode_lenient(Conversation)": lambda data: cc.decode_lenient(data, type=cc.Conversation),
    }
    for name in NAMES:
        out[f"{name}.decode_request"] = providers.get(name).decode_request
        out[f"{name}.decode_response"] = providers.get(name).decode_response
    return out


DECODERS = every_decoder()

# What the implementation-defined (i_) cases do, recorded. Every family decoder
# reads the numbers a float or an int holds (rounding an underflow to 0) and
# refuses as not JSON (DecodeError) the rest: numbers past a double, invalid
# UTF-8 and lone surrogates in strings, UTF-16 and byte order marks.
FAMILIES_READ = {
    "i_number_double_huge_neg_exp.json",
    "i_number_real_underflow.json",
    "i_number_too_big_neg_int.json",
    "i_number_too_big_pos_int.json",
    "i_number_very_big_negative_int.json",
    "i_structure_500_nested_arrays.json",
}
# The canonical decoder refuses as not JSON only what its syntax scan refuses
# (escaped lone surrogates, UTF-16, byte order marks); no i_ case is a message,
# so the others are refused by the types (ValidationError).
CANONICAL_NOT_JSON = {
    "i_object_key_lone_2nd_surrogate.json",
    "i_string_1st_surrogate_but_2nd_missing.json",
    "i_string_1st_valid_surrogate_2nd_invalid.json",
    "i_string_UTF-16LE_with_BOM.json",
    "i_string_incomplete_surrogate_and_escape_valid.json",
    "i_string_incomplete_surrogate_pair.json",
    "i_string_incomplete_surrogates_escape_valid.json",
    "i_string_invalid_lonely_surrogate.json",
    "i_string_invalid_surrogate.json",
    "i_string_inverted_surrogates_U+1D11E.json",
    "i_string_lone_second_surrogate.json",
    "i_string_utf16BE_no_BOM.json",
    "i_string_utf16LE_no_BOM.json",
    "i_structure_UTF-8_BOM_empty_object.json",
}


def outcome(decode: Any, data: bytes) -> str:
    """ "not JSON" (DecodeError), "refused" (another of our errors) or "read"."""
    try:
        decode(data)
    except cc.DecodeError:
        return "not JSON"
    except cc.ChatCodecError:
        return "refused"
    return "read"


class TestJsonConformance:
    """JSONTestSuite: n_ refused as not JSON, y_ read by the JSON layer, i_ as recorded."""

    @pytest.mark.parametrize("path", suite_files())
    def test_case(self, path: Path) -> None:
        data = path.read_bytes()
        found = {name: outcome(decode, data) for name, decode in DECODERS.items()}
        if path.name.startswith("n_"):
            assert set(found.values()) == {"not JSON"}, found
        elif path.name.startswith("y_"):
            # Well-formed: the schema reads or refuses it, the JSON layer never does.
            assert "not JSON" not in found.values(), found
        else:
            families = {v for k, v in found.items() if "." in k}
            assert families == ({"refused"} if path.name in FAMILIES_READ else {"not JSON"})
            canonical = found["decode(Message)"]
            assert canonical == ("not JSON" if path.name in CANONICAL_NOT_JSON else "refused")

    def test_copy_in_the_repository(self) -> None:
        names = {path.name[:2] for path in SUITE.glob("*.json")}
        assert names == {"n_", "y_", "i_"}
        if FULL_SUITE.exists():
            for path in SUITE.glob("*.json"):
                assert path.read_bytes() == (FULL_SUITE / path.name).read_bytes()


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
        assert "$.extras" + cc.key_step("nobody") in paths
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


class TestBodySize:
    """A whole body over ``max_bytes`` is refused before it is parsed, in every family."""

    @pytest.mark.parametrize("codec", NAMES)
    @pytest.mark.parametrize("method", ["decode_request", "decode_response"])
    def test_over_the_limit(self, codec: str, method: str) -> None:
        decode = getattr(providers.get(codec), method)
        body = b'{"padding":"' + b"x" * 200 + b'"}'
        with pytest.raises(cc.DecodeError, match=r"over the limit max_bytes=100 - at `\$`"):
            decode(body, max_bytes=100)
        with pytest.raises(cc.DecodeError, match="max_bytes=100"):
            decode(body.decode(), max_bytes=100)  # text counts characters

    @pytest.mark.parametrize("codec", NAMES)
    def test_at_the_limit_and_by_default(self, codec: str) -> None:
        module = providers.get(codec)
        body = module.encode_request(cc.Request((cc.user("Hi"),), model="m", max_tokens=5))
        assert module.decode_request(body, max_bytes=len(body)).messages == (cc.user("Hi"),)
        assert module.decode_request(body).messages == (cc.user("Hi"),)

    def test_the_default_is_64_mib(self) -> None:
        from chatcodec.providers._wire import MAX_BODY

        assert MAX_BODY == 64 * 1024 * 1024
        with pytest.raises(cc.DecodeError, match="max_bytes"):
            providers.get("openai").decode_request(b" " * (MAX_BODY + 1))
