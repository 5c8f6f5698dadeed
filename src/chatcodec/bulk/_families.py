"""The families a bulk run reads and writes, each with the same four functions.

A provider codec is one (``openai``, ``anthropic``, ``bedrock``...). Two more
exist only here: ``chatcodec`` (the canonical JSON of requests, responses and
transcripts) and ``sharegpt`` (fine-tuning conversations). A Bedrock *batch*
record holds the model's own body, not a Converse one: chatcodec reads the
Anthropic Messages body that Claude takes there.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

import msgspec

from .._codec import decode, decode_json, encode, read_transcript
from .._errors import ValidationError
from .._exchange import Request, Response
from .._frozen import FrozenMap
from .._loss import Loss
from .._messages import Message
from ..providers import ALIASES, NAMES, Codec, get
from ..providers._lower import to_request
from ..providers._options import request_options
from . import _sharegpt

__all__ = ["FAMILIES", "PROVIDERS", "Family", "family", "fill", "normalize"]

PROVIDERS = frozenset(NAMES)
FAMILIES = (*NAMES, "chatcodec", "sharegpt")
"""Every name ``--from`` and ``--to`` take (and the aliases of the providers)."""

_NO_OPTIONS: Mapping[str, Any] = FrozenMap({})

BEDROCK_BATCH_BODY = (
    "a Bedrock batch record converts when its modelInput is a Claude (Anthropic "
    "Messages) body: batch inference takes each model's own body, not Converse"
)
BEDROCK_VERSION = "bedrock-2023-05-31"
BEDROCK_NO_MODEL = "a Bedrock batch record carries no model: the job names it"


class Family(Protocol):
    """What a bulk run needs of a family: requests and responses both ways."""

    name: str

    def read_request(self, body: bytes, losses: list[Loss]) -> Request: ...

    def write_request(self, request: Request, losses: list[Loss]) -> bytes: ...

    def read_response(self, body: bytes) -> Response: ...

    def write_response(self, response: Response, losses: list[Loss]) -> bytes: ...


def normalize(name: str) -> str:
    """The family a name stands for; ``ValidationError`` naming the known ones."""
    key = name.lower()
    key = {"canonical": "chatcodec"}.get(key, ALIASES.get(key, key))
    if key not in FAMILIES:
        known = ", ".join((*FAMILIES, *ALIASES, "canonical"))
        raise ValidationError(f"no family named {name!r}; known: {known}", "$")
    return key


def fill(request: Request, model: str | None, max_tokens: int | None) -> Request:
    """``model`` for every request (as :func:`chatcodec.convert`), ``max_tokens`` where none is."""
    values: dict[str, Any] = {}
    if model is not None and request.model != model:
        values["model"] = model
    if max_tokens is not None and request.max_tokens is None:
        values["max_tokens"] = max_tokens
    return msgspec.structs.replace(request, **values) if values else request


class _Provider:
    def __init__(self, codec: Codec, options: Mapping[str, Any] = _NO_OPTIONS) -> None:
        self.name = codec.NAME
        self.codec = codec
        self.options = options  # the encoder's own options (see providers._options)

    def read_request(self, body: bytes, losses: list[Loss]) -> Request:
        return self.codec.decode_request(body)

    def write_request(self, request: Request, losses: list[Loss]) -> bytes:
        return self.codec.encode_request(request, losses=losses, **self.options)

    def read_response(self, body: bytes) -> Response:
        return self.codec.decode_response(body)

    def write_response(self, response: Response, losses: list[Loss]) -> bytes:
        return self.codec.encode_response(response, losses=losses)


class _Bedrock(_Provider):
    """Claude's InvokeModel body: Anthropic Messages with ``anthropic_version``, no model."""

    def __init__(self) -> None:
        super().__init__(get("anthropic"))
        self.name = "bedrock"

    def read_request(self, body: bytes, losses: list[Loss]) -> Request:
        return self.codec.decode_request(unwrap(body))

    def write_request(self, request: Request, losses: list[Loss]) -> bytes:
        if request.model is not None:
            losses.append(Loss("$.model", BEDROCK_NO_MODEL))
            request = msgspec.structs.replace(request, model=None)
        return wrap(self.codec.encode_request(request, losses=losses))[0]


def unwrap(body: bytes) -> bytes:
    """A Claude-on-Bedrock body as the Anthropic API takes it (``anthropic_version`` out)."""
    values = decode_json(body, Any)
    if not isinstance(values, dict) or "messages" not in values:
        raise ValidationError(BEDROCK_BATCH_BODY, "$")
    values.pop("anthropic_version", None)
    return msgspec.json.encode(values)


def wrap(body: bytes) -> tuple[bytes, bool]:
    """An Anthropic request body as Claude on Bedrock takes it, and whether it named a model."""
    values = msgspec.json.decode(body)
    model = values.pop("model", None)
    return msgspec.json.encode({"anthropic_version": BEDROCK_VERSION, **values}), model is not None


class _Canonical:
    """chatcodec's own JSON: a Request, a Response, or a stored transcript."""

    name = "chatcodec"

    def read_request(self, body: bytes, losses: list[Loss]) -> Request:
        if body.lstrip()[:1] == b"[":
            return Request(tuple(decode(body, type=list[Message])))
        keys = decode_json(body, dict[str, msgspec.Raw])
        if "v" in keys or "records" in keys:
            transcript, _ = read_transcript(body)
            request, dropped = to_request(transcript)
            losses.extend(dropped)
            return request
        return decode(body, type=Request)

    def write_request(self, request: Request, losses: list[Loss]) -> bytes:
        return encode(request)

    def read_response(self, body: bytes) -> Response:
        return decode(body, type=Response)

    def write_response(self, response: Response, losses: list[Loss]) -> bytes:
        return encode(response)


class _ShareGpt:
    name = "sharegpt"

    def read_request(self, body: bytes, losses: list[Loss]) -> Request:
        return _sharegpt.read(body, losses)

    def write_request(self, request: Request, losses: list[Loss]) -> bytes:
        return _sharegpt.write(request, losses)

    def read_response(self, body: bytes) -> Response:
        raise ValidationError("sharegpt holds conversations, not responses", "$")

    def write_response(self, response: Response, losses: list[Loss]) -> bytes:
        raise ValidationError("sharegpt holds conversations, not responses", "$")


def family(name: str, *, batch: bool = False, tool_call_content: str = "omit") -> Family:
    """The family of a name (after :func:`normalize`); ``batch``: of a batch record's body.

    ``tool_call_content`` is OpenAI Chat's request option (checked by the plan).
    """
    key = normalize(name)
    if key == "chatcodec":
        return _Canonical()
    if key == "sharegpt":
        return _ShareGpt()
    if key == "bedrock" and batch:
        return _Bedrock()
    codec = get(name)  # a service's name gives its dialect (OpenAI Chat's)
    return _Provider(codec, request_options(codec.NAME, tool_call_content))
