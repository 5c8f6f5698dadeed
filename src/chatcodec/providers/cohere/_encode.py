"""Canonical -> Cohere v2 Chat wire: ``POST /v2/chat`` requests and responses.

The wire is built from the canonical fields; the ``extras["cohere"]`` keys
fill what those left unset and their hints (:mod:`._common`) restore how the
wire spelled things. What Cohere has no place for is reported to the
:class:`~chatcodec.providers._wire.Encoding`: audio and files, a tool
result's error flag and images, a forced tool by name, several answers,
reasoning signatures, citations in a user's or a tool's text, other
providers' parts and fields. An assistant's citations are written by
:mod:`._cite`.
"""

from __future__ import annotations

from typing import Any

from msgspec import Raw

from ..._content import (
    ContentPart,
    ImagePart,
    OpaquePart,
    ReasoningPart,
    RefusalPart,
    TextPart,
)
from ..._errors import DECODE_FAILURES
from ..._exchange import EFFORT_BUDGETS, ProviderTool, Reasoning, Request, Response
from ..._loss import Loss, a, block_lost, cannot_run, signature_lost
from ..._messages import (
    AssistantMessage,
    DeveloperMessage,
    SystemMessage,
    ToolMessage,
    UserMessage,
)
from ..._record import json_decoder
from ..._tools import InvalidToolCall, ToolCall
from ..._usage import FinishReason
from .._cache import report_cache
from .._cite import lose_citations
from .._finish import reason_of, write
from .._lower import DENIED_RESULT, lower
from .._wire import Encoding, derive_id, encode_body, fill, lose_if_read_valid
from ._cite import write_citations
from ._common import ABSENT, DERIVED, FINISH, NAME, data_url

__all__ = ["assistant_wire", "encode_request", "encode_response"]

_objects = json_decoder(dict[str, Raw])
_CACHED = frozenset(("cached_tokens",))


def _dict(value: Any) -> dict[str, Any]:
    return value if type(value) is dict else {}


# -- requests -------------------------------------------------------------


def encode_request(
    request: Request,
    *,
    losses: list[Loss] | None = None,
    vision: bool = True,
    denied_result: str = DENIED_RESULT,
) -> bytes:
    enc = Encoding(NAME, losses)
    request = lower(request, enc, vision=vision, denied_result=denied_result, result_names=False)
    report_cache(request, enc)
    own = enc.own(request.extras, "$")
    out: dict[str, Any] = {}
    if request.model is not None:
        out["model"] = request.model
    if request.messages:
        out["messages"] = _messages(request, enc)
    _tools(request, own, out, enc)
    # Cohere's own fields go where its SDK writes them: the bodies read alike.
    _kept(own, out, "strict_tools", "documents", "citation_options")
    if request.response_format is not None:
        out["response_format"] = _format(request, enc)
    _kept(own, out, "safety_mode")
    _sampling(request, own, out)
    _kept(own, out, "logprobs")
    choice = request.tool_choice
    if choice is not None and choice.mode != "auto":
        if choice.mode == "tool":
            enc.lose("$.tool_choice.name", "cohere cannot force one named tool: sent as REQUIRED")
        out["tool_choice"] = "NONE" if choice.mode == "none" else "REQUIRED"
    if request.reasoning is not None:
        out["thinking"] = thinking(request.reasoning, enc)
    _kept(own, out, "priority")
    if request.stream is not None:
        out["stream"] = request.stream
    if request.parallel_tool_calls is not None:
        enc.lose("$.parallel_tool_calls", "cohere has no parallel tool calls setting")
    if request.n is not None and request.n != 1:
        enc.lose("$.n", "several answers: cohere gives one answer per request")
    if request.user is not None:
        enc.lose("$.user", "an end-user id: cohere has no such setting")
    return encode_body(fill(out, own))


def _kept(own: dict[str, Any], out: dict[str, Any], *keys: str) -> None:
    for key in keys:
        if key in own and key not in out:
            out[key] = own[key]


def _tools(request: Request, own: dict[str, Any], out: dict[str, Any], enc: Encoding) -> None:
    tools: list[Any] = []
    strict: list[int] = []
    loose = False
    for k, tool in enumerate(request.tools):
        path = f"$.tools[{k}]"
        if isinstance(tool, ProviderTool):
            if tool.provider == NAME:
                tools.append(tool.data)
            else:
                enc.lose(path, cannot_run(tool.provider, NAME))
            continue
        tool_own = enc.own(tool.extras, path)
        fn: dict[str, Any] = {"name": tool.name}
        if tool.description is not None:
            fn["description"] = tool.description
        if tool.parameters is not None:
            fn["parameters"] = tool.parameters
        wire: dict[str, Any] = {} if tool_own.get("~type") == ABSENT else {"type": "function"}
        wire["function"] = fill(fn, _dict(tool_own.get("function")))
        tools.append(fill(wire, tool_own))
        if tool.strict:
            strict.append(k)
        else:
            loose = True
    if tools:
        out["tools"] = tools
    if strict and not loose:
        out["strict_tools"] = True
    elif strict:
        for k in strict:
            enc.lose(f"$.tools[{k}].strict", "cohere's strict_tools is one switch for every tool")


def _format(request: Request, enc: Encoding) -> dict[str, Any]:
    rf = request.response_format
    assert rf is not None
    enc.own(rf.extras, "$.response_format")
    if rf.name is not None:
        enc.lose("$.response_format.name", "cohere response formats have no name")
    if rf.type == "text":
        return {"type": "text"}
    if rf.type == "json_schema":
        if rf.schema is not None:
            return {"type": "json_object", "json_schema": rf.schema}
        enc.lose("$.response_format", "a JSON schema format without a schema is sent as JSON")
    return {"type": "json_object"}


def _sampling(request: Request, own: dict[str, Any], out: dict[str, Any]) -> None:
    ints = own.get("~int")
    ints = ints if type(ints) is list else ()

    def number(key: str, value: float | None) -> None:
        if value is not None:
            whole = key in ints and type(value) is float and value.is_integer()
            out[key] = int(value) if whole else value

    if request.max_tokens is not None:
        out["max_tokens"] = request.max_tokens
    if request.stop is not None:
        out["stop_sequences"] = list(request.stop)
    number("temperature", request.temperature)
    if request.seed is not None:
        out["seed"] = request.seed
    number("frequency_penalty", request.frequency_penalty)
    number("presence_penalty", request.presence_penalty)
    if request.top_k is not None:
        out["k"] = request.top_k
    number("p", request.top_p)


def thinking(reasoning: Reasoning, enc: Encoding) -> dict[str, Any]:
    """Cohere's ``thinking`` for a reasoning setting (an effort as its token budget, reported)."""
    if reasoning.off:
        return {"type": "disabled"}
    if reasoning.budget_tokens is not None:
        return {"type": "enabled", "token_budget": reasoning.budget_tokens}
    if reasoning.effort is not None:
        budget = EFFORT_BUDGETS[reasoning.effort]
        rule = f"a reasoning effort: cohere takes a token budget (sent as {budget})"
        enc.lose("$.reasoning.effort", rule)
        return {"type": "enabled", "token_budget": budget}
    return {"type": "enabled"}


def _messages(request: Request, enc: Encoding) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for i, message in enumerate(request.messages):
        path = f"$.messages[{i}]"
        if type(message) is AssistantMessage:
            out.append(assistant_wire(message, path, enc))
            continue
        own = enc.own(message.extras, path)
        item: dict[str, Any]
        if type(message) is UserMessage:
            item = {"role": "user"}
            _content(message.content, own, item, path, enc, tool=False)
        elif type(message) is ToolMessage:
            item = {"role": "tool", "tool_call_id": message.tool_call_id}
            _content(message.content, own, item, path, enc, tool=True)
            if message.is_error:
                enc.lose(path + ".is_error", "cohere has no tool error flag")
        else:
            assert isinstance(message, SystemMessage | DeveloperMessage)
            item = {"role": "system", "content": _instruction(message.content, own)}
        out.append(fill(item, own))
    return out


def _instruction(text: str, own: dict[str, Any]) -> Any:
    """A system message's ``content``: the string, or the text items it was joined from."""
    lengths = own.get("~parts")
    if type(lengths) is not list or sum(n for n in lengths if type(n) is int) != len(text):
        return text
    items = []
    at = 0
    for n in lengths:
        items.append({"type": "text", "text": text[at : at + n]})
        at += n
    return items


def _content(
    content: str | tuple[ContentPart, ...],
    own: dict[str, Any],
    out: dict[str, Any],
    path: str,
    enc: Encoding,
    *,
    tool: bool,
) -> None:
    """A user's or a tool result's ``content``: the string, or its items."""
    form = own.get("~content")
    if isinstance(content, str):
        if content or form != ABSENT:
            out["content"] = content
        return
    if not tool and len(content) == 1 and type(content[0]) is TextPart and not content[0].text:
        if form == ABSENT:
            return
        if form in ("str", "empty"):
            out["content"] = "" if form == "str" else []
            return
    items: list[Any] = []
    for k, part in enumerate(content):
        p = f"{path}.content[{k}]"
        if type(part) is OpaquePart and part.provider == NAME:
            items.append(part.data)
            continue
        part_own = enc.own(part.extras, p)
        if type(part) is TextPart:
            if part.citations:
                lose_citations(enc, part, p, "cohere cites in answers only")
            document = _document(part, part_own) if tool else None
            if document is not None:
                items.append(document)
            else:
                items.append(fill({"type": "text", "text": part.text}, part_own))
        elif type(part) is ImagePart and not tool:
            image = _image(part, part_own, p, enc)
            if image is not None:
                items.append(image)
        elif isinstance(part, OpaquePart):
            enc.lose(p, block_lost(part.provider, NAME))
        else:
            kind = type(part).__struct_config__.tag
            where = "a tool result" if tool else "a user message"
            enc.lose(p, f"cohere cannot carry {a(str(kind))} part in {where}")
    out["content"] = items


def _document(part: TextPart, own: dict[str, Any]) -> dict[str, Any] | None:
    """A text part read from a ``document`` item, written as one again."""
    form = own.get("~document")
    if form == "object":
        try:
            _objects.decode(part.text)  # the document's data must still be a JSON object
        except DECODE_FAILURES:
            return None
        data: Any = Raw(part.text.encode())
    elif form == "str":
        data = part.text
    else:
        return None
    keys = {key: value for key, value in own.items() if not key.startswith("~")}
    return {"type": "document", "document": {"data": data, **keys}}


def _image(part: ImagePart, own: dict[str, Any], path: str, enc: Encoding) -> dict[str, Any] | None:
    if part.data is not None:
        url = data_url(part.media_type, part.data)
    elif part.url is not None:
        url = part.url
    else:
        enc.lose(path, "cohere takes an image by URL or data only")
        return None
    inner: dict[str, Any] = {"url": url}
    if part.detail is not None:
        inner["detail"] = part.detail
    keys = {key: value for key, value in own.items() if key not in ("~url",)}
    return fill({"type": "image_url", "image_url": inner}, keys)


def assistant_wire(
    message: AssistantMessage, path: str, enc: Encoding, *, response: bool = False
) -> dict[str, Any]:
    """An assistant message as Cohere writes it, in a request's history or a response.

    A response's ``content`` is always a list of items; a request's may be a string.
    """
    own = enc.own(message.extras, path)
    out: dict[str, Any] = {} if own.get("~role") == ABSENT else {"role": "assistant"}
    content = message.content
    plans: list[str] = []
    items: list[Any] = []
    cited: list[tuple[int, TextPart, str]] = []
    if isinstance(content, str):
        items.append({"type": "text", "text": content})
    elif content:
        for k, part in enumerate(content):
            p = f"{path}.content[{k}]"
            if type(part) is OpaquePart and part.provider == NAME:
                items.append(part.data)
                continue
            part_own = enc.own(part.extras, p)
            if type(part) is TextPart:
                if part.citations:
                    cited.append((len(items), part, p))
                items.append(fill({"type": "text", "text": part.text}, part_own))
            elif type(part) is ReasoningPart:
                if part_own.get("~plan") is True:
                    plans.append(part.text)
                    continue
                if part.signature is not None and part.provider != NAME:
                    enc.lose(p + ".signature", signature_lost(part.provider))
                if part.redacted is not None:
                    enc.lose(p + ".redacted", "redacted reasoning cohere cannot carry")
                if part.text or part.redacted is None:
                    items.append(fill({"type": "thinking", "thinking": part.text}, part_own))
            elif type(part) is RefusalPart:
                items.append({"type": "text", "text": part.text})
                enc.lose(p, "cohere has no refusal part; sent as text")
            else:
                assert isinstance(part, OpaquePart)
                enc.lose(p, block_lost(part.provider, NAME))
    # Keys kept as sent ("" or null, []) go where this message writes them.
    _kept(own, out, "tool_plan")
    if plans:
        out["tool_plan"] = "".join(plans)
    calls = [
        _call(call, f"{path}.tool_calls[{k}]", enc) for k, call in enumerate(message.tool_calls)
    ]
    calls += [
        _call(call, f"{path}.invalid_tool_calls[{k}]", enc)
        for k, call in enumerate(message.invalid_tool_calls)
    ]
    if calls:
        out["tool_calls"] = calls
    _kept(own, out, "tool_calls")
    form = own.get("~content")
    if form == "str" and all(item.get("type") == "text" for item in items if type(item) is dict):
        out["content"] = "".join(item["text"] for item in items)
    elif isinstance(content, str) and not response:
        out["content"] = content
    elif form != ABSENT and (items or content is not None):
        out["content"] = items
    if cited:
        if form == "str":
            for _, part, p in cited:
                lose_citations(enc, part, p, "cohere cites content items, not a string")
        else:
            first = next(
                k for k, item in enumerate(items) if type(item) is dict and item["type"] == "text"
            )
            written = write_citations(cited, first, enc)
            kept = own.get("citations")
            if written or type(kept) is list:
                out["citations"] = (kept if type(kept) is list else []) + written
    return fill(out, own)


def _call(call: ToolCall | InvalidToolCall, path: str, enc: Encoding) -> dict[str, Any]:
    if type(call) is InvalidToolCall:
        lose_if_read_valid(call, path, enc)
    own = enc.own(call.extras, path)
    out: dict[str, Any] = {}
    if own.get("~id") != DERIVED:
        # Cohere needs an id to pair a result with its call: an invalid call
        # without one gets one derived from its place.
        out["id"] = call.id if call.id is not None else derive_id("call_", path)
    if own.get("~type") != ABSENT:
        out["type"] = "function"
    fn: dict[str, Any] = {}
    if call.name is not None:
        fn["name"] = call.name
    arguments = bytes(call.arguments).decode() if isinstance(call, ToolCall) else call.arguments
    if arguments or own.get("~arguments") != ABSENT:
        fn["arguments"] = arguments
    out["function"] = fill(fn, _dict(own.get("function")))
    return fill(out, own)


# -- responses ------------------------------------------------------------


def encode_response(response: Response, *, losses: list[Loss] | None = None) -> bytes:
    enc = Encoding(NAME, losses)
    own = enc.own(response.extras, "$")
    out: dict[str, Any] = {}
    if response.id is not None:
        out["id"] = response.id
    if response.model is not None:
        enc.lose("$.model", "cohere responses do not name the model")
    for k in range(1, len(response.choices)):
        enc.lose(f"$.choices[{k}]", "cohere answers with one message")
    choice = response.choices[0] if response.choices else None
    if choice is not None:
        # Cohere has no choice object: its keys are the response's.
        own = {**enc.own(choice.extras, "$.choices[0]"), **own}
        if choice.message is not None:
            message = choice.message
            out["message"] = assistant_wire(message, "$.choices[0].message", enc, response=True)
        if choice.finish_reason is not None:
            out["finish_reason"] = _finish(choice.raw_finish_reason, choice.finish_reason, enc)
    usage = response.usage
    if usage is not None:
        usage_own = enc.own(usage.extras, "$.usage")
        wire: dict[str, Any] = {}
        if "billed_units" in usage_own:
            wire["billed_units"] = usage_own["billed_units"]
        wire["tokens"] = {
            "input_tokens": usage.prompt_tokens,
            "output_tokens": usage.completion_tokens,
        }
        if usage.cached_tokens is not None:
            wire["cached_tokens"] = usage.cached_tokens
        enc.lose_counts(usage, "$.usage", _CACHED)
        out["usage"] = fill(wire, usage_own)
    return encode_body(fill(out, own))


def _finish(raw: str | int | None, finish: FinishReason, enc: Encoding) -> str:
    """The wire's reason: the raw one while it still means ``finish``."""
    finish = reason_of(finish, "$.choices[0].finish_reason")
    meant = FINISH.get(raw, FinishReason.OTHER) if type(raw) is str else None
    wire, lost = write(NAME, finish, raw, meant)
    if lost is not None:
        enc.lose("$.choices[0].finish_reason", lost)
    return wire or "COMPLETE"
