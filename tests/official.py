"""What the providers' own types accept: the official SDKs and AWS's service model.

Shared by the provider tests and the bulk contract test. Each checker takes
a body a family's API receives (or returns) and raises, or returns the
complaints, when the official types refuse it. Base64 payloads are checked
as the receiving side decodes them: standard alphabet, padded.
"""

from __future__ import annotations

import base64
import binascii
import json
from typing import Any

import botocore.session
import pydantic
from anthropic.types import Message as AnthropicMessage
from anthropic.types.message_create_params import MessageCreateParamsNonStreaming
from anthropic.types.messages.batch_create_params import Request as AnthropicBatchRequest
from botocore.validate import ParamValidator
from cohere import ChatMessageV2, Citation, CitationOptions, ResponseFormatV2, Thinking, ToolV2
from cohere.v2.types import V2ChatRequestDocumentsItem, V2ChatResponse
from google.genai import types
from ollama import ChatResponse as OllamaResponse
from ollama._types import ChatRequest
from openai.types.chat import ChatCompletion, completion_create_params
from openai.types.responses import Response as ResponsesResponse
from openai.types.responses import response_create_params

# The SDK's pydantic types lack a few keys that the live API takes, and raise
# AttributeError (not a ValidationError) on enums sent as integers
# (``enum-encoding=int``). Those pieces are left out of the SDK checks:
# - generationConfig.imageConfig (GenerationConfig lacks it; GenerateContentConfig has it)
# - usageMetadata.serviceTier and gateway keys (GenerateContentResponseUsageMetadata lacks them)
# - Schema ``type`` as a proto number (the SDK's enum parser calls .upper() on it)
SDK_MISSING = {"generationConfig": {"imageConfig"}}


def sdk_check_request(body: dict[str, Any]) -> None:
    """Validate each piece of an encoded request against google-genai's types."""
    for content in body["contents"]:
        types.Content.model_validate(content)
    tools = body.get("tools", [])
    for tool in [tools] if isinstance(tools, dict) else tools:
        if '"type": 6' in json.dumps(tool) or '"type": 1' in json.dumps(tool):
            continue  # integer Schema types: see above
        types.Tool.model_validate(tool)
    for keys, model in (
        (("systemInstruction", "system_instruction"), types.Content),
        (("toolConfig", "tool_config"), types.ToolConfig),
        (("generationConfig", "generation_config"), types.GenerationConfig),
    ):
        for key in keys:
            if key in body:
                piece = body[key]
                if isinstance(piece, dict):
                    missing = SDK_MISSING.get(key, set())
                    piece = {k: v for k, v in piece.items() if k not in missing}
                model.model_validate(piece)


def sdk_check_response(raw: bytes) -> None:
    body = json.loads(raw)
    usage = body.get("usageMetadata")
    if isinstance(usage, dict):
        for key in ("serviceTier", "pydantic_ai_gateway"):
            usage.pop(key, None)
    if '"finishReason":1' in raw.decode() or '"finishReason": 1' in raw.decode():
        return  # integer enums: see above
    types.GenerateContentResponse.model_validate_json(json.dumps(body))


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


_OPENAI = pydantic.TypeAdapter(completion_create_params.CompletionCreateParamsNonStreaming)
_RESPONSES = pydantic.TypeAdapter(response_create_params.ResponseCreateParamsNonStreaming)
_ANTHROPIC = pydantic.TypeAdapter(MessageCreateParamsNonStreaming)
_ANTHROPIC_BATCH = pydantic.TypeAdapter(AnthropicBatchRequest)
_CONVERSE_OUT = _MODEL.operation_model("Converse").output_shape


def standard_base64(value: Any, where: str) -> None:
    """Raise unless ``value`` is standard, padded base64 (what Anthropic and OpenAI decode)."""
    try:
        base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError, TypeError):
        raise AssertionError(f"{where}: not standard base64") from None


def _walk(value: Any) -> Any:
    if type(value) is dict:
        yield value
        for item in value.values():
            yield from _walk(item)
    elif type(value) is list:
        for item in value:
            yield from _walk(item)


def _payloads(body: dict[str, Any]) -> None:
    """Every base64 payload in a body, in the places each family carries one."""
    for node in _walk(body):
        source = node.get("source")
        if type(source) is dict and source.get("type") == "base64":
            standard_base64(source.get("data"), "source.data")
        audio = node.get("input_audio")
        if type(audio) is dict:
            standard_base64(audio.get("data"), "input_audio.data")
        url = node.get("url") if node.get("type") == "image_url" else None
        image = node.get("image_url")
        if type(image) is dict:
            url = image.get("url")
        if type(url) is str and url.startswith("data:") and ";base64," in url:
            standard_base64(url.split(";base64,", 1)[1], "image_url.url")
        raw = node.get("bytes")
        if type(raw) is str:
            standard_base64(raw, "bytes")


# Cohere's SDK has no type for a whole request body: each field of V2's chat
# method, by the type its parameter takes.
_COHERE_TYPES: dict[str, Any] = {
    "model": str,
    "messages": list[ChatMessageV2],
    "tools": list[ToolV2],
    "strict_tools": bool,
    "documents": list[V2ChatRequestDocumentsItem],
    "citation_options": CitationOptions,
    "response_format": ResponseFormatV2,
    "safety_mode": str,
    "max_tokens": int,
    "stop_sequences": list[str],
    "temperature": float,
    "seed": int,
    "frequency_penalty": float,
    "presence_penalty": float,
    "k": int,
    "p": float,
    "logprobs": bool,
    "tool_choice": str,
    "thinking": Thinking,
    "priority": int,
    "stream": bool,
}
_COHERE_FIELDS = {name: pydantic.TypeAdapter(kind) for name, kind in _COHERE_TYPES.items()}


def _cohere_request(body: dict[str, Any]) -> None:
    assert {"model", "messages"} <= body.keys(), sorted(body)
    for key, value in body.items():
        _COHERE_FIELDS[key].validate_python(value, strict=key != "documents")


# The response's types coerce ("3" for an index); a citation is checked as written.
_COHERE_CITATIONS = pydantic.TypeAdapter(list[Citation])


def check_cohere_citations(citations: Any) -> None:
    """Raise unless Cohere's types take ``citations`` without coercing a value.

    Each source names what it cites: a tool source its result's id, a
    document source an id or the document.
    """
    _COHERE_CITATIONS.validate_python(citations, strict=True)
    for citation in citations:
        for source in citation.get("sources") or ():
            if source["type"] == "tool":
                assert type(source.get("id")) is str, source
            else:
                assert type(source.get("id")) is str or source.get("document"), source


def check_request(family: str, record: bytes) -> None:
    """Raise unless ``family``'s official types accept the request body."""
    body = json.loads(record)
    _payloads(body)
    if family == "openai":
        _OPENAI.validate_python({**body, "stream": False} if body.get("stream") else body)
    elif family == "openai-responses":
        _RESPONSES.validate_python({k: v for k, v in body.items() if k != "stream"})
    elif family == "anthropic":
        _ANTHROPIC.validate_python({k: v for k, v in body.items() if k != "stream"})
    elif family == "gemini":
        sdk_check_request(body)
    elif family == "bedrock":
        complaints = validate(record)
        assert not complaints, complaints
    elif family == "ollama":
        ChatRequest.model_validate(body)
    elif family == "cohere":
        _cohere_request(body)
    else:
        raise ValueError(family)


def check_response(family: str, record: bytes) -> None:
    """Raise unless ``family``'s official types accept the response body."""
    body = json.loads(record)
    _payloads(body)
    if family == "openai":
        ChatCompletion.model_validate(body)
    elif family == "openai-responses":
        ResponsesResponse.model_validate(body)
    elif family == "anthropic":
        AnthropicMessage.model_validate({"stop_sequence": None, **body})
    elif family == "gemini":
        sdk_check_response(record)
    elif family == "bedrock":
        report = _VALIDATOR.validate(_params(_CONVERSE_OUT, body), _CONVERSE_OUT)
        assert not report.has_errors(), report.generate_report()
    elif family == "ollama":
        OllamaResponse.model_validate(body)
    elif family == "cohere":
        V2ChatResponse.model_validate(body)
        message = body.get("message")
        if type(message) is dict and "citations" in message:
            check_cohere_citations(message["citations"])
    else:
        raise ValueError(family)


BATCH_KEYS = {
    "openai": {"custom_id", "method", "url", "body"},
    "openai-responses": {"custom_id", "method", "url", "body"},
    "anthropic": {"custom_id", "params"},
    "gemini": {"key", "request"},
    "bedrock": {"recordId", "modelInput"},
}


def check_batch_request(family: str, record: bytes) -> None:
    """Raise unless a batch input line is what ``family``'s batch API takes."""
    line = json.loads(record)
    assert set(line) == BATCH_KEYS[family], sorted(line)
    if family == "anthropic":
        _ANTHROPIC_BATCH.validate_python(line)
        assert line["params"].get("stream") is not True
        check_request("anthropic", json.dumps(line["params"]).encode())
    elif family in ("openai", "openai-responses"):
        url = "/v1/responses" if family == "openai-responses" else "/v1/chat/completions"
        assert (line["method"], line["url"]) == ("POST", url)
        assert line["body"].get("stream") is not True
        check_request(family, json.dumps(line["body"]).encode())
    elif family == "gemini":
        check_request("gemini", json.dumps(line["request"]).encode())
    else:
        # Claude's own body, as Bedrock batch inference takes it: no model.
        body = dict(line["modelInput"])
        assert body.pop("anthropic_version") == "bedrock-2023-05-31"
        assert "model" not in body
        check_request("anthropic", json.dumps({"model": "claude-x", **body}).encode())
