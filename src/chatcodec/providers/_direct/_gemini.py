"""A usual OpenAI Chat request written straight as a Gemini ``generateContent`` request.

What :func:`chatcodec.providers.gemini.encode_request` writes for the
canonical form of such a request, without building that form: leading
instructions become ``systemInstruction``, each message a content (the
results of one answer's calls share one), reasoning a ``thought`` part, a
call's arguments its ``args`` as the bytes they were sent as, a result that
is a JSON object its ``response`` as sent, other text ``{"result": text}``,
an image or a PDF by data its ``inlineData``; a file's name and a file id
(left out) are reported, as the general path reports them.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from msgspec import UNSET, Raw

from ..._frozen import FrozenMap
from ..._loss import Loss
from .._profiles import profile
from .._wire import Encoding, encode_body
from ..gemini._common import signs_calls
from ..gemini._encode import _MODES, STREAM, thinking_config
from ..gemini._encode_parts import NO_FILE_ID, NO_FILE_NAME, NO_MEDIA_TYPE, _object_reply
from ..gemini._encode_parts import NOT_JSON as NOT
from ..gemini._encode_parts import _media_type as media_type_of
from ._source import (
    NOT_JSON,
    Fallback,
    Read,
    Tools,
    kept_losses,
    once,
    tool_choice,
    tool_losses,
)

__all__ = ["write"]

NAME = "gemini"
_MIME = FrozenMap({"text": "text/plain", "json_object": "application/json"})


def write(r: Read) -> tuple[bytes, list[Loss]]:
    """The Gemini body, and what it could not carry.

    Raises
    ------
    Fallback
        When the general path would write more (a Gemini 3 model's call
        signatures) or Gemini's preflight would warn (a schema keyword).
    """
    if signs_calls(r.model):
        raise Fallback
    found = profile(NAME, r.model)
    if found is not None and not found.json_schema:
        raise Fallback  # Gemini 1.x: no JSON Schema fields (the others change nothing here)
    body = r.body
    tools = None if r.tools is None or not r.tools.specs else _tools(r)
    losses: list[Loss] = []
    if r.kept is not None:
        losses += kept_losses(NAME, r)
    out: dict[str, Any] = {"contents": _contents(r, losses)}
    tool_losses(r, NAME, losses)  # after the messages, as the general encoder
    start = r.start
    if start:
        system = [{"text": m.content} for m in body.messages[:start]]
        out["systemInstruction"] = {"parts": system}
    if tools is not None:
        out["tools"] = [{"functionDeclarations": tools}]
    choice = tool_choice(r, NAME, losses)
    if choice is not None:
        calling: dict[str, Any] = {"mode": _MODES[choice]}
        if r.forced is not None:
            calling["allowedFunctionNames"] = [r.forced]
        out["toolConfig"] = {"functionCallingConfig": calling}
    config: dict[str, Any] = {}
    if r.max_tokens is not None:
        config["maxOutputTokens"] = r.max_tokens
    if body.temperature is not UNSET:
        config["temperature"] = body.temperature
    if body.top_p is not UNSET:
        config["topP"] = body.top_p
    if r.stop is not None:
        config["stopSequences"] = r.stop
    if body.n is not UNSET:
        config["candidateCount"] = body.n
    if r.reasoning is not None:
        thinking = thinking_config(r.reasoning, r.model, Encoding(NAME, losses))
        if thinking is not None:
            config["thinkingConfig"] = thinking
    if body.response_format is not UNSET:
        config["responseMimeType"] = _MIME[body.response_format.type]
    if config:
        out["generationConfig"] = config
    if body.stream is True:
        losses.append(Loss("$.stream", STREAM))
    return encode_body(out), losses


def _contents(r: Read, losses: list[Loss]) -> list[Any]:
    messages = r.body.messages
    arguments, names = r.arguments, r.names
    images = iter(r.images)
    contents: list[Any] = []
    results: list[Any] | None = None  # the parts of the open content of results
    for k in range(r.start, len(messages)):
        m: Any = messages[k]  # its keys were checked for its role by read
        role = m.role
        if role == "tool":
            call_id = m.tool_call_id
            text = m.content
            if type(text) is not str:  # text parts (see _source._messages): one text
                text = "".join([p.text for p in text])
            part = {"functionResponse": _result(names[call_id], text, call_id)}
            if results is None:
                results = [part]
                contents.append({"role": "user", "parts": results})
            else:
                results.append(part)
            continue
        results = None
        if role == "user":
            path = f"$.messages[{k}]"
            contents.append({"role": "user", "parts": _user(m.content, images, path, losses)})
        else:
            parts: list[Any] = []
            if m.reasoning_content is not UNSET:
                parts.append({"text": m.reasoning_content, "thought": True})
            elif m.reasoning is not UNSET:
                parts.append({"text": m.reasoning, "thought": True})
            if type(m.content) is str:
                parts.append({"text": m.content})
            elif type(m.content) is list:
                parts.extend({"text": part.text} for part in m.content)
            if m.tool_calls is not UNSET:
                late: list[Any] = []  # invalid calls: after the others, as the general path
                for c in m.tool_calls:
                    data = arguments[c.id]
                    call = {"name": c.function.name, "args": data, "id": c.id}
                    (late if data is NOT_JSON else parts).append({"functionCall": call})
                for n, part in enumerate(late):
                    losses.append(Loss(f"$.messages[{k}].invalid_tool_calls[{n}].arguments", NOT))
                    parts.append(part)
            contents.append({"role": "model", "parts": parts})
    return contents


def _result(name: str, text: str, call_id: str) -> dict[str, Any]:
    data = text.encode("utf-8", "surrogatepass")
    # A JSON object goes as itself, other text wrapped.
    response: Any = Raw(data) if _object_reply(data) else {"result": text}
    return {"name": name, "response": response, "id": call_id}


def _user(
    content: Any, images: Iterator[tuple[str, Any]], path: str, losses: list[Loss]
) -> list[Any]:
    if type(content) is str:
        return [{"text": content}]
    parts: list[Any] = []
    for j, part in enumerate(content):
        if part.type == "text":
            parts.append({"text": part.text})
            continue
        media_type, data = next(images)
        if part.type == "file" and not media_type:
            losses.append(Loss(f"{path}.content[{j}]", NO_FILE_ID))  # left out
            continue
        if not media_type:
            # An image or a document by URL: the media type its extension names.
            url = bytes(data)[1:-1].decode()  # ASCII without escapes (see image)
            guess = media_type_of(url)
            if guess is None:
                losses.append(Loss(f"{path}.content[{j}]", NO_MEDIA_TYPE))  # left out
            else:
                parts.append({"fileData": {"mimeType": guess, "fileUri": url}})
            continue
        parts.append({"inlineData": {"mimeType": media_type, "data": data}})
        if part.type == "file" and part.file.filename is not UNSET:
            losses.append(Loss(f"{path}.content[{j}].filename", NO_FILE_NAME))
    if not parts:
        raise Fallback  # a turn with nothing left: the general path knows its rule
    return parts


def _tools(r: Read) -> Raw:
    """The function declarations, written once per array of tools."""
    tools = r.tools
    assert tools is not None
    return once(_WRITTEN, tools.key, _write_tools, tools)


_WRITTEN: dict[bytes, Raw | None] = {}


def _write_tools(tools: Tools) -> Raw | None:
    out: list[Any] = []
    for t, schema in zip(tools.specs, tools.schemas, strict=True):
        if not schema.gemini:
            return None  # a warning of the preflight
        f = t.function
        decl: dict[str, Any] = {}
        if type(f.description) is str and f.description:
            decl["description"] = f.description
        decl["name"] = f.name
        decl["parametersJsonSchema"] = schema.value
        out.append(decl)
    return Raw(encode_body(out))
