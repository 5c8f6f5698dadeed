"""What the provider benchmarks compute, and the checks that every peer agrees.

Decoding a real response body, per family: chatcodec's codec against the
official SDK's own parsing of the same bytes (a pydantic model; for Bedrock,
botocore's parser with the ``Converse`` output shape) and against
``orjson.loads`` (bytes to dicts, no types, no checks). Converting a 20-message
request with tool calls from OpenAI's format to every family that is not
OpenAI's, against chatcodec's canonical decode and encode of the same
conversation.

The corpus has no Cohere traffic: its body is the curated one of the tests
(``tests/data/providers/cohere/response/docs__tool-use__tool_calls.json``,
from Cohere's tool use guide; see its ``SOURCES.md``).
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgspec
import orjson

import chatcodec as cc
from chatcodec import providers

DATA = Path(__file__).parent / "data"
CURATED = Path(__file__).parent.parent / "tests" / "data" / "providers"
RESPONSES = {
    **{
        name: (DATA / "providers" / f"{name}_response.json").read_bytes()
        for name in ("openai", "anthropic", "gemini", "ollama", "openai-responses", "bedrock")
    },
    "cohere": (CURATED / "cohere" / "response" / "docs__tool-use__tool_calls.json").read_bytes(),
}
TRANSCRIPT = (DATA / "transcript_20.json").read_bytes()


class CheckFailed(Exception):
    """A peer does not compute what chatcodec computes."""


Call = tuple[str, dict[str, Any]]


def _calls_chatcodec(response: cc.Response) -> list[Call]:
    return [(call.name, call.arguments_dict()) for call in response.tool_calls]


def _calls_openai(value: Any) -> list[Call]:
    return [
        (call.function.name, orjson.loads(call.function.arguments))
        for call in value.choices[0].message.tool_calls
    ]


def _calls_anthropic(value: Any) -> list[Call]:
    return [(block.name, block.input) for block in value.content if block.type == "tool_use"]


def _calls_gemini(value: Any) -> list[Call]:
    parts = value.candidates[0].content.parts
    return [
        (part.function_call.name, part.function_call.args) for part in parts if part.function_call
    ]


def _calls_ollama(value: Any) -> list[Call]:
    return [
        (call.function.name, dict(call.function.arguments)) for call in value.message.tool_calls
    ]


def _calls_openai_responses(value: Any) -> list[Call]:
    return [
        (item.name, orjson.loads(item.arguments))
        for item in value.output
        if item.type == "function_call"
    ]


def _calls_cohere(value: Any) -> list[Call]:
    return [
        (call.function.name, orjson.loads(call.function.arguments))
        for call in value.message.tool_calls
    ]


def _calls_bedrock(value: Any) -> list[Call]:
    blocks = value["output"]["message"]["content"]
    return [(b["toolUse"]["name"], b["toolUse"]["input"]) for b in blocks if "toolUse" in b]


def _calls_dicts(name: str) -> Callable[[Any], list[Call]]:
    def calls(value: Any) -> list[Call]:
        if name == "openai":
            raw = value["choices"][0]["message"]["tool_calls"]
            return [(c["function"]["name"], orjson.loads(c["function"]["arguments"])) for c in raw]
        if name == "openai-responses":
            items = value["output"]
            return [
                (i["name"], orjson.loads(i["arguments"]))
                for i in items
                if i["type"] == "function_call"
            ]
        if name == "anthropic":
            return [(b["name"], b["input"]) for b in value["content"] if b["type"] == "tool_use"]
        if name == "gemini":
            parts = value["candidates"][0]["content"]["parts"]
            return [
                (p["functionCall"]["name"], p["functionCall"]["args"])
                for p in parts
                if "functionCall" in p
            ]
        if name == "bedrock":
            return _calls_bedrock(value)
        raw = value["message"]["tool_calls"]
        if name == "cohere":  # arguments as JSON text, as OpenAI's
            return [(c["function"]["name"], orjson.loads(c["function"]["arguments"])) for c in raw]
        return [(c["function"]["name"], c["function"]["arguments"]) for c in raw]

    return calls


# Each SDK's response model, by module and class name: imported on first use,
# because importing them all costs seconds in every pyperf worker process.
SDK: dict[str, tuple[str, str, str, Callable[[Any], list[Call]]]] = {
    "openai": ("openai-sdk", "openai.types.chat", "ChatCompletion", _calls_openai),
    "anthropic": ("anthropic-sdk", "anthropic.types", "Message", _calls_anthropic),
    "gemini": ("google-genai", "google.genai.types", "GenerateContentResponse", _calls_gemini),
    "ollama": ("ollama-sdk", "ollama", "ChatResponse", _calls_ollama),
    "openai-responses": (
        "openai-sdk",
        "openai.types.responses",
        "Response",
        _calls_openai_responses,
    ),
    "bedrock": ("botocore", "botocore.parsers", "RestJSONParser", _calls_bedrock),
    "cohere": ("cohere-sdk", "cohere.v2.types", "V2ChatResponse", _calls_cohere),
}


def _botocore_parse() -> Callable[[bytes], Any]:
    """botocore's reading of a ``Converse`` answer, as boto3 does it (no network)."""
    session = importlib.import_module("botocore.session").get_session()
    shape = session.get_service_model("bedrock-runtime").operation_model("Converse").output_shape
    parser = importlib.import_module("botocore.parsers").create_parser("rest-json")

    def parse(body: bytes) -> Any:
        return parser.parse({"body": body, "headers": {}, "status_code": 200}, shape)

    return parse


def _sdk_parse(name: str) -> Callable[[bytes], Any]:
    if name == "bedrock":
        return _botocore_parse()
    _, module, model, _ = SDK[name]
    parse: Callable[[bytes], Any] = getattr(
        importlib.import_module(module), model
    ).model_validate_json
    return parse


def _lazy(name: str) -> Callable[[bytes], Any]:
    """The SDK's parse, imported when first called (in the warm-up)."""
    parse: list[Callable[[bytes], Any]] = []

    def call(body: bytes) -> Any:
        if not parse:
            parse.append(_sdk_parse(name))
        return parse[0](body)

    return call


def _typed_wire(name: str) -> Callable[[bytes], Any]:
    """chatcodec's typed decode of the family's wire shape, alone: no canonical records.

    The first step of ``decode_response``'s fast path; the floor under it.
    """
    fast = importlib.import_module(f"chatcodec.providers.{name.replace('-', '_')}._fast")
    # Cohere's module names its response decoder apart from its request decoder.
    decode: Callable[[bytes], Any] = (
        fast._decode_response if name == "cohere" else fast._decoder.decode
    )
    if name != "openai-responses":
        return decode
    # The Responses fast path reads the envelope, then each output item on its own.
    decode_item: Callable[[bytes], Any] = fast._decode_item

    def responses(body: bytes) -> Any:
        r = decode(body)
        return r, [decode_item(item) for item in r.output]

    return responses


def _has_typed_wire(name: str) -> bool:
    """Whether the family has a typed fast path for its responses."""
    module = name.replace("-", "_")
    return importlib.util.find_spec(f"chatcodec.providers.{module}._fast") is not None


def decoders(name: str) -> dict[str, Callable[[bytes], Any]]:
    """The implementations that decode one family's response body."""
    out = {
        "chatcodec": providers.get(name).decode_response,
        SDK[name][0]: _lazy(name),
        "orjson": orjson.loads,
    }
    if _has_typed_wire(name):
        out["typed-wire"] = _typed_wire(name)
    return out


def check_decode(name: str) -> None:
    """Every implementation finds the same tool calls in the body."""
    body = RESPONSES[name]
    peer, _, _, sdk_calls = SDK[name]
    parse = _sdk_parse(name)
    want = _calls_chatcodec(providers.get(name).decode_response(body))
    if not want:
        raise CheckFailed(f"the {name} response has no tool calls")
    answers = {peer: sdk_calls(parse(body)), "orjson": _calls_dicts(name)(orjson.loads(body))}
    for implementation, calls in answers.items():
        if calls != want:
            raise CheckFailed(f"{implementation} does not find the same calls as chatcodec")
    # The typed wire decode reads this body (else the fast path is not what is timed).
    if not _has_typed_wire(name):
        return
    try:
        _typed_wire(name)(body)
    except msgspec.DecodeError:
        raise CheckFailed(f"the {name} body does not take the typed fast path") from None


# -- conversion ------------------------------------------------------------------

MESSAGES = tuple(cc.decode(TRANSCRIPT, type=list[cc.Message]))
TOOLS = (
    cc.ToolDefinition(
        name,
        f"The {name.replace('_', ' ')} tool.",
        {"type": "object", "properties": {"q": {"type": "string"}}},
        strict=False,
    )
    for name in sorted(
        {
            call.name
            for message in MESSAGES
            if isinstance(message, cc.AssistantMessage)
            for call in message.tool_calls
        }
    )
)
OPENAI_REQUEST = providers.get("openai").encode_request(
    cc.Request(MESSAGES, model="gpt-4o", tools=tuple(TOOLS), max_tokens=1024)
)


def canonical_round_trip(data: bytes) -> bytes:
    """chatcodec's canonical decode and encode of the conversation."""
    return cc.encode(cc.decode(data, type=list[cc.Message]))


# The target's model a caller passes: the preflight refuses another provider's model
# (Anthropic's and Cohere's), as bench_distribution.py passes them.
MODELS = {
    "anthropic": "claude-sonnet-4-5",
    "gemini": "gemini-2.5-flash",
    "openai-responses": "gpt-4o",
    "bedrock": "anthropic.claude-3-5-sonnet-20240620-v1:0",
    "cohere": "command-a-03-2025",
}


def converter(target: str) -> Callable[[bytes], bytes]:
    model = MODELS.get(target)

    def convert(body: bytes) -> bytes:
        return cc.convert(body, source="openai", target=target, model=model)[0]

    return convert


def check_convert(target: str) -> None:
    """The converted request holds the conversation, and nothing was lost."""
    out, report = cc.convert(
        OPENAI_REQUEST, source="openai", target=target, model=MODELS.get(target)
    )
    if report:
        raise CheckFailed(f"converting to {target} lost {report.paths}")
    back = providers.get(target).decode_request(out)
    calls = [
        (call.name, call.arguments_dict())
        for message in back.messages
        if isinstance(message, cc.AssistantMessage)
        for call in message.tool_calls
    ]
    want = [
        (call.name, call.arguments_dict())
        for message in MESSAGES
        if isinstance(message, cc.AssistantMessage)
        for call in message.tool_calls
    ]
    if calls != want:
        raise CheckFailed(f"the {target} request does not hold the same tool calls")
    if canonical_round_trip(TRANSCRIPT) != cc.encode(list(MESSAGES)):
        raise CheckFailed("the canonical round trip changes the conversation")
