"""The usual Gemini ``generateContent`` request, read into the typed request the writers take.

Most Gemini requests are a few contents of text and inline images or PDFs,
the model's function calls with their ids (and thought signatures) and the
results that answer them, a system instruction of text, function
declarations with a JSON schema, a function calling mode and a few
generation settings. msgspec decodes that shape, in either of the spellings
Gemini takes for a part's keys, straight into the private Structs below, in
C; anything else (a file by URI, audio, a thought, a result with parts, a
Gemini schema, Google's own tools, a setting the shape does not name) fails
the decode or is declined, and goes the general way. The contents are then
written as the OpenAI Chat messages they stand for, as
:func:`chatcodec.providers.gemini.decode_request` reads them (each model
content one answer, its calls after its text; each content of results one
tool message per result, the text a ``{"result": ...}`` or ``{"error":
...}`` wraps or the response as JSON), so that the OpenAI source's own
checks (:func:`._source.shaped`, :func:`._source.check_specs`) rule on the
conversation and the tools, and every writer serves the result. What the
general path keeps as sent is reported as it reports it: the safety
settings and ``responseModalities`` by the writers
(:attr:`~._source.Read.kept`), a call's signature and a result's error
flag by :func:`holding` (:attr:`~._source.Read.held`), the flag written
where the target has one. What the general path reads otherwise (a call
without an id, whose id it makes up; a result for no call of the turn
before; a mode of several allowed functions) is declined.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

import msgspec
from msgspec import UNSET, Raw, Struct, UnsetType

from ..._errors import DepthError
from ..._frozen import FrozenMap
from ..._loss import Loss
from .._wire import Encoding, standard_base64_json
from ..anthropic._encode_parts import IMAGE_TYPES
from ..gemini._common import from_gemini_schema
from ..ollama._encode import NO_ERROR_FLAG as OLLAMA_FLAG
from ..openai._encode import NO_ERROR_FLAG as OPENAI_FLAG
from ..openai._encode_assistant import _GEMINI_ONLY as GEMINI_ONLY
from ..openai_responses._encode_items import NO_ERROR_FLAG as RESPONSES_FLAG
from ._source import (
    _URL,
    Body,
    Fallback,
    FunctionSpec,
    Message,
    Part,
    Read,
    Tools,
    ToolSpec,
    Writer,
    _Call,
    _choice,
    _File,
    _Forced,
    _Format,
    _Function,
    _Named,
    check_specs,
    decoded,
    once,
    place_message_losses,
    runnable,
    shaped,
    well_formed,
)

__all__ = ["IS_ERROR", "holding", "read"]

NAME = "gemini"


class _Wire(Struct, forbid_unknown_fields=True, gc=False):
    pass


class _FunctionCall(_Wire):
    name: str
    args: dict[str, Any]
    id: str


class _FunctionResponse(_Wire):
    name: str
    response: dict[str, Any]
    id: str


# The types taken (the images every target takes, and PDFs), named in the type so
# that audio or video of megabytes stops the decode where its type is read.
_Media = Literal["image/jpeg", "image/png", "image/gif", "image/webp", "application/pdf"]


class _Inline(_Wire, kw_only=True):
    mimeType: _Media | UnsetType = UNSET  # noqa: N815
    mime_type: _Media | UnsetType = UNSET
    data: Raw  # base64 of megabytes: copied as sent, not read (see _media)


class _Part(_Wire, kw_only=True):
    # Gemini takes either spelling of a key: the general path reads both alike.
    text: str | UnsetType = UNSET
    functionCall: _FunctionCall | UnsetType = UNSET  # noqa: N815 (the wire's spelling)
    function_call: _FunctionCall | UnsetType = UNSET
    functionResponse: _FunctionResponse | UnsetType = UNSET  # noqa: N815
    function_response: _FunctionResponse | UnsetType = UNSET
    thoughtSignature: str | UnsetType = UNSET  # noqa: N815
    thought_signature: str | UnsetType = UNSET
    inlineData: _Inline | UnsetType = UNSET  # noqa: N815
    inline_data: _Inline | UnsetType = UNSET


class _Content(_Wire):
    role: Literal["user", "model"]
    parts: list[_Part]


class _Text(_Wire):
    text: str


class _Instruction(_Wire, kw_only=True):
    role: str | UnsetType = UNSET  # a hint for the way back: no target writes it
    parts: list[_Text]


class _Declaration(_Wire, kw_only=True):
    name: str
    description: str | UnsetType | None = UNSET
    parametersJsonSchema: Raw | UnsetType = UNSET  # noqa: N815
    parameters_json_schema: Raw | UnsetType = UNSET  # the same, as Gemini also spells it
    parameters: dict[str, Any] | UnsetType = UNSET  # Gemini's own schema (see _schema)


class _Calling(_Wire, kw_only=True):
    mode: Literal["AUTO", "ANY", "NONE", "VALIDATED"]
    allowedFunctionNames: list[str] | UnsetType = UNSET  # noqa: N815


class _ToolConfig(_Wire):
    functionCallingConfig: _Calling  # noqa: N815


class _Generation(_Wire, kw_only=True):
    maxOutputTokens: int | UnsetType = UNSET  # noqa: N815
    temperature: int | float | UnsetType = UNSET
    topP: int | float | UnsetType = UNSET  # noqa: N815
    stopSequences: list[str] | UnsetType = UNSET  # noqa: N815
    responseMimeType: Literal["application/json", "text/plain"] | UnsetType = UNSET  # noqa: N815
    responseModalities: Any = UNSET  # noqa: N815 (kept as sent by the general path: reported)


class _Request(_Wire, kw_only=True):
    contents: list[_Content]
    systemInstruction: _Instruction | UnsetType = UNSET  # noqa: N815
    tools: Raw | UnsetType = UNSET  # checked once per array of tools (see _tools)
    toolConfig: _ToolConfig | UnsetType = UNSET  # noqa: N815
    generationConfig: _Generation | UnsetType = UNSET  # noqa: N815
    model: str | UnsetType = UNSET
    safetySettings: Any = UNSET  # noqa: N815 (kept as sent by the general path: reported)


_decoder = msgspec.json.Decoder(_Request)
_DATA = b'"data:'
_BASE64 = b";base64,"
_declarations = msgspec.json.Decoder(list[_Declaration])
_groups = msgspec.json.Decoder(list[dict[str, Raw]])
_GROUP = "functionDeclarations"
_encode = msgspec.json.Encoder().encode
_WRAPS = frozenset(("result", "error"))  # {"result": text} is how a result's text is sent
IS_ERROR = "is_error"
"""The key :attr:`~._source.Read.held` names a result's error flag by."""
_MODES: Mapping[str, Literal["auto", "required", "none"]] = FrozenMap(
    {"AUTO": "auto", "VALIDATED": "auto", "ANY": "required", "NONE": "none"}
)
_FORMATS: Mapping[str, Literal["text", "json_object"]] = FrozenMap(
    {"text/plain": "text", "application/json": "json_object"}
)


def read(body: bytes | str, model: str | None, max_tokens: int | None) -> Read:
    """The typed request, checked to be of the usual shape (see :func:`~._source.read`).

    The model is the caller's, else the body's ``model`` (Gemini names it in
    the URL, so most bodies have none).

    Raises
    ------
    Fallback
        When the body is not of the usual shape (or not JSON).
    """
    r = decoded(_decoder, body)
    messages: list[Message] = []
    system = r.systemInstruction
    if system is not UNSET:
        if not system.parts or not all(part.text for part in system.parts):
            raise Fallback  # kept as sent by the general path
        messages += [Message(role="system", content=part.text) for part in system.parts]
    held: list[tuple[str, str, Any]] = []
    _contents(r.contents, messages, held)
    typed = Body(messages=messages)
    typed.model = r.model
    kept: dict[str, Any] = {}
    if r.safetySettings is not UNSET:
        kept["safetySettings"] = r.safetySettings
    config = r.generationConfig
    if config is not UNSET:
        _generation(config, typed, kept)
    read = shaped(typed, kept or None, model, max_tokens, NAME)
    read.held = tuple(held)
    failed = [value for _, key, value in held if key == IS_ERROR]
    if failed:
        read.failed = frozenset(failed)
    if r.tools is not UNSET:
        read.tools = _tools(r.tools)
    if r.toolConfig is not UNSET:
        read.choice, read.forced = _choice(
            _choice_of(r.toolConfig.functionCallingConfig), read.tools
        )
    runnable(read.tools, read.choice, read.arguments)
    return read


def _generation(config: _Generation, typed: Body, kept: dict[str, Any]) -> None:
    """The settings of ``config`` into ``typed``; what the general path keeps, into ``kept``."""
    if config.maxOutputTokens is not UNSET:
        typed.max_tokens = config.maxOutputTokens
    typed.temperature = config.temperature  # an int stays one, as the general path reads it
    typed.top_p = config.topP
    typed.stop = config.stopSequences
    if config.responseMimeType is not UNSET:
        typed.response_format = _Format(_FORMATS[config.responseMimeType])
    if config.responseModalities is not UNSET:
        kept["generationConfig"] = {"responseModalities": config.responseModalities}


def _contents(
    contents: list[_Content], out: list[Message], held: list[tuple[str, str, Any]]
) -> None:
    """Each content as the OpenAI Chat messages the general path reads it as.

    ``held``: what the messages hold that no writer writes (see ``Read.held``).
    """
    results = False  # the content before held only results
    names: dict[str, str] = {}  # the tool name of each call of the last answer, by id
    for content in contents:
        parts = content.parts
        if not parts:
            raise Fallback  # refused, or kept as an empty answer, by the general path
        if content.role == "model":
            answer = _answer(parts, len(out), held)
            out.append(answer)
            names = {}
            if answer.tool_calls is not UNSET:
                names = {c.id: c.function.name for c in answer.tool_calls}
            results = False
        elif _response(parts[0]) is not UNSET:
            if results:
                raise Fallback  # a second content of results: marked apart by the general path
            for part in parts:
                out.append(_result(part, names, len(out), held))
            results = True
        else:
            out.append(_user(parts))
            results = False


def _user(parts: list[_Part]) -> Message:
    """A user content of text and inline images or PDFs, as one user message."""
    out: list[Part] = []
    for part in parts:
        if _text_alone(part):  # the usual part: one test, not one per key
            out.append(Part(type="text", text=part.text))  # "" is refused by _source._messages
            continue
        if _call(part) is not UNSET or _response(part) is not UNSET or _signature(part):
            raise Fallback  # a result after the user's parts keeps its place in the general path
        inline = _inline(part)
        text = part.text
        if inline is not UNSET:
            if text is not UNSET:
                raise Fallback  # kept whole by the general path
            out.append(_media(inline))
        elif text is UNSET:
            raise Fallback
        else:
            out.append(Part(type="text", text=text))  # "" is refused by _source._messages
    if len(out) == 1 and out[0].type == "text":
        return Message(role="user", content=out[0].text)
    return Message(role="user", content=out)


_PDF = "application/pdf"


def _media(inline: _Inline) -> Part:
    """An inline image or PDF as the OpenAI source's part of its data URL.

    The data is copied as sent (see :func:`._source.image`), or in the
    standard padded alphabet when it is sent in another (URL-safe, unpadded),
    as the general path reads it. One with an escape goes the general way,
    as does another type.
    """
    mime = inline.mimeType
    if mime is UNSET:
        mime = inline.mime_type
    elif inline.mime_type is not UNSET:
        raise Fallback  # the second spelling is kept as sent
    if mime is UNSET or not (mime in IMAGE_TYPES or mime == _PDF):
        raise Fallback  # no type, or one the targets read otherwise
    data = bytes(inline.data)
    if data[:1] != b'"' or b"\\" in data or not data.isascii():
        raise Fallback
    url = Raw(b"".join((_DATA, mime.encode(), _BASE64, memoryview(standard_base64_json(data))[1:])))
    if mime == _PDF:
        return Part(type="file", file=_File(file_data=url))
    return Part(type="image_url", image_url=_URL(url))


def _result(
    part: _Part, names: dict[str, str], k: int, held: list[tuple[str, str, Any]]
) -> Message:
    """A result, as the ``k``-th message; ``names``: the calls it may answer (see _contents)."""
    result = _response(part)
    if result is UNSET or part.text is not UNSET or _call(part) is not UNSET or _signature(part):
        raise Fallback
    if not result.id or names.pop(result.id, None) != result.name:
        # Answered by name (the general path makes up its call's id), or for no call
        # of the answer before, or under another name: the general path keeps its name.
        raise Fallback
    response = result.response
    if len(response) == 1:
        [(key, value)] = response.items()
        if key in _WRAPS and type(value) is str:
            if value[:1] == "{" or value[:1].isspace():
                raise Fallback  # a hint the general path writes for the way back
            if key == "error":
                held.append((f"$.messages[{k}]", IS_ERROR, result.id))  # the general path's flag
            return Message(role="tool", content=value, tool_call_id=result.id)
    text = _encode(response).decode()
    return Message(role="tool", content=text, tool_call_id=result.id)


def _answer(parts: list[_Part], k: int, held: list[tuple[str, str, Any]]) -> Message:
    """A model content as the ``k``-th message; its calls' signatures into ``held``."""
    texts: list[Part] = []
    calls: list[_Call] = []
    for part in parts:
        call = _call(part)
        if call is not UNSET:
            if part.text is not UNSET or _response(part) is not UNSET:
                raise Fallback
            if not call.id or not call.name:
                raise Fallback  # an id made up, or an invalid call, by the general path
            arguments = _encode(call.args).decode()  # the general path's bytes
            function = _Function(call.name, arguments)
            signature = _signature(part)
            if signature is not None:
                held.append((f"$.messages[{k}].tool_calls[{len(calls)}]", *signature))
            calls.append(_Call(id=call.id, type="function", function=function))
            continue
        if calls or not _text_alone(part):
            raise Fallback  # text after a call keeps its place in the general path
        if not part.text:
            raise Fallback
        texts.append(Part(type="text", text=part.text))
    content: Any = texts
    if len(texts) == 1:
        content = texts[0].text
    if not calls:
        return Message(role="assistant", content=content)
    return Message(role="assistant", content=content or None, tool_calls=calls)


def _choice_of(calling: _Calling) -> str | _Forced:
    """The function calling mode as the OpenAI source reads a tool choice."""
    names = calling.allowedFunctionNames
    if names is UNSET:
        return _MODES[calling.mode]
    if calling.mode != "ANY" or len(names) != 1 or not names[0]:
        raise Fallback  # kept beside the mode by the general path: reported
    return _Forced("function", _Named(names[0]))


# Each array of tools checked, by its bytes, as the OpenAI source keeps its own.
_TOOLS: dict[bytes, Tools | None] = {}


def _tools(raw: Raw) -> Tools:
    key = bytes(raw)
    return once(_TOOLS, key, _check_tools, key)


def _check_tools(key: bytes) -> Tools | None:
    """The declarations as the OpenAI source reads its tools, if every one is usual; else None.

    The general path reads the groups' declarations as one list of tools, and
    any other group (Google Search, code execution, a group with no
    declarations...) as one tool of Gemini's own, which the targets leave out
    and report.
    """
    try:
        groups = _groups.decode(key)
    except (msgspec.DecodeError, UnicodeError, RecursionError):
        return None  # not an array of objects: the general path's error, or a form it keeps
    declarations: list[tuple[int, _Declaration]] = []  # each by its index among the tools
    foreign: list[int] = []
    for group in groups:
        at = len(declarations) + len(foreign)
        listed = group.get(_GROUP)
        if listed is None or len(group) != 1:
            if "function_declarations" in group:
                return None  # the other spelling: kept for the way back
            if not all(map(well_formed, group.values())):
                return None  # the general path's error
            foreign.append(at)
            continue
        try:
            found = _declarations.decode(listed)
        except (msgspec.DecodeError, UnicodeError, RecursionError):
            return None
        if not found:
            foreign.append(at)  # no declarations: a tool of Gemini's own
        declarations += ((at + j, d) for j, d in enumerate(found))
    specs: list[ToolSpec] = []
    extras: list[tuple[int, dict[str, Any]]] = []
    for k, d in declarations:
        description = d.description
        if description is None or description == "":
            # Canonically absent, kept in the tool's extras for the way back: reported.
            extras.append((k, {NAME: {"description": description}}))
            description = UNSET
        schema = _schema(d)
        if schema is None:
            return None
        spec = FunctionSpec(name=d.name, description=description, parameters=schema)
        specs.append(ToolSpec(type="function", function=spec))
    return check_specs(NAME, key, specs, tuple(extras), tuple(foreign))


def _text_alone(part: _Part) -> bool:
    """Whether the part is a text and nothing else (a call, a result, a signature, data)."""
    return (
        part.text is not UNSET
        and part.functionCall is UNSET
        and part.function_call is UNSET
        and part.functionResponse is UNSET
        and part.function_response is UNSET
        and part.thoughtSignature is UNSET
        and part.thought_signature is UNSET
        and part.inlineData is UNSET
        and part.inline_data is UNSET
    )


def _call(part: _Part) -> _FunctionCall | UnsetType:
    """The part's call, in either spelling."""
    call = part.functionCall
    if call is UNSET:
        return part.function_call
    if part.function_call is not UNSET:
        raise Fallback  # the second spelling is kept as sent
    return call


def _response(part: _Part) -> _FunctionResponse | UnsetType:
    """The part's result, in either spelling."""
    result = part.functionResponse
    if result is UNSET:
        return part.function_response
    if part.function_response is not UNSET:
        raise Fallback  # the second spelling is kept as sent
    return result


def _inline(part: _Part) -> _Inline | UnsetType:
    """The part's inline data, in either spelling."""
    inline = part.inlineData
    if inline is UNSET:
        return part.inline_data
    if part.inline_data is not UNSET:
        raise Fallback  # the second spelling is kept as sent
    return inline


def _signature(part: _Part) -> tuple[str, str] | None:
    """The part's thought signature and the key it is sent under, or None."""
    signature = part.thoughtSignature
    if signature is UNSET:
        if part.thought_signature is UNSET:
            return None
        return "thought_signature", part.thought_signature
    if part.thought_signature is not UNSET:
        raise Fallback  # the second spelling is kept as sent
    return "thoughtSignature", signature


def holding(write: Writer, target: str) -> Writer:
    """``write``, reporting what the messages hold as the general path reports it.

    The general encoder reports a call's extras as it writes the call, and a
    result's error flag as it writes the result: after the keys only the
    source keeps, which every writer reports first, and before the rest. A
    request whose messages the writer reports on too goes the general way,
    where the two are told in the messages' order; so does an error flag
    for a target that carries it (Anthropic, Bedrock) or warns of it
    (Cohere's preflight).
    """
    flag = _ERROR_FLAGS.get(target)
    openai = target == "openai"

    def write_held(r: Read) -> tuple[bytes, list[Loss]]:
        out, losses = write(r)
        if not r.held:
            return out, losses
        said: list[Loss] = []
        encoding = Encoding(target, said)
        for path, key, value in r.held:
            if key == IS_ERROR:
                if flag is None:
                    if target in _FLAGGED:
                        continue  # written by the writer (see Read.failed)
                    raise Fallback
                said.append(Loss(f"{path}.{IS_ERROR}", flag))
            elif openai:
                said.append(Loss(f"{path}.extras.{NAME}.{key}", GEMINI_ONLY))
            else:
                encoding.own({NAME: {key: value}}, path)
        place_message_losses(losses, said)
        return out, losses

    return write_held


_FLAGGED = frozenset(("anthropic", "bedrock"))  # the targets that write a result's error flag
# What each target that has no error flag for a result says of one.
_ERROR_FLAGS: Mapping[str, str] = FrozenMap(
    {"openai": OPENAI_FLAG, "openai-responses": RESPONSES_FLAG, "ollama": OLLAMA_FLAG}
)


def _schema(d: _Declaration) -> Raw | None:
    """The declaration's parameters as a JSON schema, as the general path reads them; or None.

    None when it has none, or both or a schema of Gemini's own the general
    path keeps beside them, or one it cannot read.
    """
    schema = d.parametersJsonSchema
    if schema is UNSET:
        schema = d.parameters_json_schema
    elif d.parameters_json_schema is not UNSET:
        return None  # the second spelling is kept as sent
    own = d.parameters
    if schema is not UNSET:
        return schema if own is UNSET else None
    if own is UNSET:
        return None
    try:
        converted = from_gemini_schema(own)
    except DepthError:
        return None
    if converted is None or converted[0].get("type") != "object":
        return None
    return Raw(_encode(converted[0]))
