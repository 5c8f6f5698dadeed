"""The peers chatcodec is measured against, in the canonical shape.

- ``Plain*``: msgspec Structs with the same fields and configuration as
  chatcodec's types (frozen, ``gc=False``, ``omit_defaults``, tagged on
  ``role``, arguments as ``msgspec.Raw``) but no ``__post_init__``: the cost of
  the types without their rules.
- ``Pydantic*``: pydantic v2 models that apply the same rules: content not
  empty, tool call id and name not empty, arguments a JSON object (a dict
  decoded from JSON, or bytes whose first non-blank byte is ``{``, the check
  chatcodec makes), an assistant message has content or tool calls, and its
  tool call ids are unique.

Only text content parts are modelled: no scenario has images, audio or files,
and every decoder picks between a string and an array of parts by the JSON
token, so the other part types would not change what is measured.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, Self

import msgspec
from pydantic import BaseModel, ConfigDict, Field, PlainValidator, TypeAdapter, model_validator

# -- msgspec, no validation -----------------------------------------------------


class PlainRecord(
    msgspec.Struct,
    frozen=True,
    gc=False,
    omit_defaults=True,
    forbid_unknown_fields=True,
    kw_only=True,
):
    extras: dict[str, Any] | None = None


class PlainTextPart(PlainRecord, frozen=True, tag_field="type", tag="text"):
    text: str


class PlainToolCall(PlainRecord, frozen=True):
    id: str
    name: str
    arguments: msgspec.Raw


class PlainInvalidToolCall(PlainRecord, frozen=True):
    id: str | None = None
    name: str | None = None
    arguments: str = ""
    error: str = ""


class PlainMessageBase(PlainRecord, frozen=True, tag_field="role", kw_only=True):
    id: str | None = None
    metadata: dict[str, Any] | None = None


class PlainSystemMessage(PlainMessageBase, frozen=True, tag="system"):
    content: str


class PlainDeveloperMessage(PlainMessageBase, frozen=True, tag="developer"):
    content: str


class PlainUserMessage(PlainMessageBase, frozen=True, tag="user"):
    content: str | tuple[PlainTextPart, ...]


class PlainAssistantMessage(PlainMessageBase, frozen=True, tag="assistant"):
    content: str | None = None
    tool_calls: tuple[PlainToolCall, ...] = ()
    invalid_tool_calls: tuple[PlainInvalidToolCall, ...] = ()


class PlainToolMessage(PlainMessageBase, frozen=True, tag="tool"):
    tool_call_id: str
    content: str
    is_error: bool = False


PlainMessage = (
    PlainSystemMessage
    | PlainDeveloperMessage
    | PlainUserMessage
    | PlainAssistantMessage
    | PlainToolMessage
)
PLAIN_DECODER = msgspec.json.Decoder(list[PlainMessage])
PLAIN_ENCODER = msgspec.json.Encoder()


# -- pydantic v2, same rules as chatcodec -----------------------------------------

NonEmpty = Annotated[str, Field(min_length=1)]


def _json_object(value: object) -> bytes | dict[str, Any]:
    if isinstance(value, dict):
        return value
    # value[:1] first: the canonical case is O(1), like chatcodec's regex.
    if isinstance(value, bytes) and (value[:1] == b"{" or value.lstrip(b" \t\r\n")[:1] == b"{"):
        return value
    raise ValueError("must be a JSON object")


class PydanticRecord(BaseModel):
    # Unknown fields are refused: chatcodec keeps them in ``extras`` on a slow
    # path that no scenario takes.
    model_config = ConfigDict(frozen=True, extra="forbid")

    extras: dict[str, Any] | None = None


class PydanticTextPart(PydanticRecord):
    type: Literal["text"]
    text: str


class PydanticToolCall(PydanticRecord):
    id: NonEmpty
    name: NonEmpty
    # A plain validator sees the value as given: bytes built in code, or what
    # the JSON held (so a JSON string is refused, as chatcodec refuses it).
    arguments: Annotated[bytes | dict[str, Any], PlainValidator(_json_object)]


class PydanticInvalidToolCall(PydanticRecord):
    id: str | None = None
    name: str | None = None
    arguments: str = ""
    error: str = ""


class PydanticMessageBase(PydanticRecord):
    id: str | None = None
    metadata: dict[str, Any] | None = None


# ``role`` has no default, as in pydantic's own discriminated-union examples, so
# that ``exclude_defaults`` (chatcodec's ``omit_defaults``) still writes it.
class PydanticSystemMessage(PydanticMessageBase):
    role: Literal["system"]
    content: NonEmpty


class PydanticDeveloperMessage(PydanticMessageBase):
    role: Literal["developer"]
    content: NonEmpty


class PydanticUserMessage(PydanticMessageBase):
    role: Literal["user"]
    content: NonEmpty | Annotated[tuple[PydanticTextPart, ...], Field(min_length=1)]


class PydanticAssistantMessage(PydanticMessageBase):
    role: Literal["assistant"]
    content: str | None = None
    tool_calls: tuple[PydanticToolCall, ...] = ()
    invalid_tool_calls: tuple[PydanticInvalidToolCall, ...] = ()

    @model_validator(mode="after")
    def _check(self) -> Self:
        calls = self.tool_calls
        invalid = self.invalid_tool_calls
        if self.content is None and not calls and not invalid:
            raise ValueError("must have content or tool calls")
        if len(calls) + len(invalid) > 1:
            ids = [call.id for call in calls]
            ids.extend(call.id for call in invalid if call.id)
            if len(set(ids)) != len(ids):
                raise ValueError("tool call ids must be unique")
        return self


class PydanticToolMessage(PydanticMessageBase):
    role: Literal["tool"]
    tool_call_id: NonEmpty
    content: str
    is_error: bool = False


PydanticMessage = Annotated[
    PydanticSystemMessage
    | PydanticDeveloperMessage
    | PydanticUserMessage
    | PydanticAssistantMessage
    | PydanticToolMessage,
    Field(discriminator="role"),
]
PYDANTIC_MESSAGES: TypeAdapter[list[PydanticMessage]] = TypeAdapter(list[PydanticMessage])


# -- comparing answers --------------------------------------------------------------


def json_values(value: object) -> Any:
    """``value`` as plain JSON values, the same for every implementation.

    Defaults are left out, as every canonical encoder leaves them out.
    """
    if isinstance(value, msgspec.Struct | msgspec.Raw):
        return msgspec.json.decode(PLAIN_ENCODER.encode(value))
    if isinstance(value, BaseModel):
        return json_values(value.model_dump(exclude_defaults=True))
    if isinstance(value, bytes):  # pydantic's arguments, built in code
        return msgspec.json.decode(value)
    if isinstance(value, dict):
        return {key: json_values(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [json_values(item) for item in value]
    return value


# -- the floor under a construction-time rule -------------------------------------
# The plain Structs again, each with an empty ``__post_init__``: what msgspec charges
# for running any rule at all, before the rule checks anything.


class HookedUserMessage(PlainUserMessage, frozen=True, tag="user"):
    def __post_init__(self) -> None:
        pass


class HookedToolCall(PlainToolCall, frozen=True):
    def __post_init__(self) -> None:
        pass


class HookedAssistantMessage(PlainAssistantMessage, frozen=True, tag="assistant"):
    def __post_init__(self) -> None:
        pass
