"""Canonical requests and responses into Ollama native ``/api/chat`` bodies.

The wire is built from the canonical fields; the ``extras["ollama"]`` keys
fill only what those left unset. Ollama takes one string of text per message
and its images as a separate list of base64 strings: text parts are joined,
images by URL cannot be sent (reported), a ``data:`` URL gives its data.
Tool results name their call: ``tool_name`` is the name of the earlier call
with the result's ``tool_call_id``.
"""

from __future__ import annotations

from typing import Any

from msgspec import Raw

from ..._content import (
    AudioPart,
    ContentPart,
    FilePart,
    ImagePart,
    OpaquePart,
    ReasoningPart,
    RefusalPart,
    TextPart,
)
from ..._exchange import ProviderTool, Reasoning, Request, Response
from ..._loss import Loss, block_lost, cannot_run, signature_lost
from ..._messages import (
    AssistantMessage,
    DeveloperMessage,
    SystemMessage,
    ToolMessage,
    UserMessage,
)
from ..._tools import InvalidToolCall, ToolCall
from ..._usage import FinishReason
from .._cache import report_cache
from .._cite import lose_citations
from .._finish import reason_of, write
from .._lower import DENIED_RESULT, lower
from .._wire import Encoding, encode_body, fill, lose_if_read_valid
from ._common import ABSENT, DERIVED, FINISH, NAME, is_object, standard_base64, tool_call_order

__all__ = ["NO_ERROR_FLAG", "encode_request", "encode_response"]

_SEPARATOR = "\n"
"""Between the texts of several text parts, joined into one ``content``."""


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
    request = lower(request, enc, vision=vision, denied_result=denied_result)
    report_cache(request, enc)
    own = enc.own(request.extras, "$")
    out: dict[str, Any] = {}
    if request.model is not None:
        out["model"] = request.model
    if request.messages:
        out["messages"] = _messages(request, enc)
    if request.tools:
        tools = [_tool(tool, f"$.tools[{k}]", enc) for k, tool in enumerate(request.tools)]
        tools = [tool for tool in tools if tool is not None]
        if tools:
            out["tools"] = tools
    if request.response_format is not None:
        out["format"] = _format(request, enc)
    options = _options(request, own)
    if options is not None:
        out["options"] = options
    if request.stream is not None:
        out["stream"] = request.stream
    elif own.get("~stream") != ABSENT and "stream" not in own:
        out["stream"] = False  # Ollama's default is to stream; other APIs' is not
    choice = request.tool_choice
    if choice is not None and choice.mode != "auto":
        enc.lose("$.tool_choice", "ollama cannot require or forbid tool calls")
    if request.parallel_tool_calls is not None:
        enc.lose("$.parallel_tool_calls", "ollama has no parallel tool calls setting")
    if request.reasoning is not None:
        out["think"] = think(request.reasoning, enc)
    if request.n is not None and request.n != 1:
        enc.lose("$.n", "several answers: ollama gives one answer per request")
    if request.user is not None:
        enc.lose("$.user", "an end-user id: ollama has no such setting")
    return encode_body(fill(out, own))


def _format(request: Request, enc: Encoding) -> Any:
    rf = request.response_format
    assert rf is not None
    enc.own(rf.extras, "$.response_format")
    if rf.name is not None:
        enc.lose("$.response_format.name", "ollama formats have no name")
    if rf.type == "text":
        return ""
    if rf.type == "json_object":
        return "json"
    if rf.schema is None:
        enc.lose("$.response_format", "a JSON schema format without a schema is sent as json")
        return "json"
    return rf.schema


def _options(request: Request, own: dict[str, Any]) -> dict[str, Any] | None:
    wire = own.get("options")
    options = dict(wire) if type(wire) is dict else {}
    ints = own.get("~int")
    ints = ints if type(ints) is list else ()
    for key, value in (("temperature", request.temperature), ("top_p", request.top_p)):
        if value is not None:
            whole = key in ints and type(value) is float and value.is_integer()
            options[key] = int(value) if whole else value
    if request.max_tokens is not None:
        options["num_predict"] = request.max_tokens
    if request.stop is not None:
        options["stop"] = list(request.stop)
    for key, value in (
        ("top_k", request.top_k),
        ("seed", request.seed),
        ("presence_penalty", request.presence_penalty),
        ("frequency_penalty", request.frequency_penalty),
    ):
        if value is not None:
            options[key] = value
    if options or type(wire) is dict:
        return options
    return None


def think(reasoning: Reasoning, enc: Encoding) -> Any:
    """Ollama's ``think`` for a reasoning setting: a switch, or a level some models take."""
    if reasoning.off:
        return False
    effort = reasoning.effort
    if effort in ("low", "medium", "high"):
        return effort
    if effort == "minimal":
        enc.lose("$.reasoning.effort", "a minimal reasoning effort: ollama's least is 'low'")
        return "low"
    if reasoning.budget_tokens is not None:
        enc.lose("$.reasoning.budget_tokens", "a thinking budget: ollama only turns thinking on")
    return True


def _tool(tool: Any, path: str, enc: Encoding) -> Any:
    if type(tool) is ProviderTool:
        if tool.provider == NAME:
            return tool.data
        enc.lose(path, cannot_run(tool.provider, NAME))
        return None
    own = enc.own(tool.extras, path)
    fn: dict[str, Any] = {"name": tool.name}
    if tool.description is not None:
        fn["description"] = tool.description
    # Ollama has no strict mode; a strict tool's schema says it instead.
    parameters = tool.emitted_parameters() if tool.strict else tool.parameters
    if parameters is not None:
        fn["parameters"] = parameters
    out: dict[str, Any] = {} if own.get("~type") == ABSENT else {"type": "function"}
    out["function"] = fill(fn, _dict(own.get("function")))
    return fill(out, own)


def _messages(request: Request, enc: Encoding) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    names: dict[str, str] = {}
    for i, message in enumerate(request.messages):
        path = f"$.messages[{i}]"
        kind = type(message)
        if kind is UserMessage:
            assert isinstance(message, UserMessage)
            own = enc.own(message.extras, path)
            item: dict[str, Any] = {"role": "user"}
            _media(message.content, own, item, path, enc)
        elif kind is AssistantMessage:
            assert isinstance(message, AssistantMessage)
            item = _assistant(message, path, enc)
            for call in message.tool_calls:
                names[call.id] = call.name
            for bad in message.invalid_tool_calls:
                if bad.id is not None and bad.name is not None:
                    names[bad.id] = bad.name
            out.append(item)
            continue
        elif kind is ToolMessage:
            assert isinstance(message, ToolMessage)
            own = enc.own(message.extras, path)
            item = {"role": "tool"}
            _media(message.content, own, item, path, enc)
            if message.name is not None:
                item["tool_name"] = message.name
            elif own.get("~tool_name") != ABSENT and "tool_name" not in own:
                name = names.get(message.tool_call_id)
                if name is not None:
                    item["tool_name"] = name
            if own.get("~tool_call_id") != DERIVED:
                item["tool_call_id"] = message.tool_call_id
            if message.is_error:
                enc.lose(path + ".is_error", NO_ERROR_FLAG)
        else:
            assert isinstance(message, SystemMessage | DeveloperMessage)
            own = enc.own(message.extras, path)
            role = "developer" if own.get("~role") == "developer" else "system"
            item = {"role": role, "content": message.content}
        out.append(fill(item, own))
    return out


def _media(
    content: str | tuple[ContentPart, ...],
    own: dict[str, Any],
    out: dict[str, Any],
    path: str,
    enc: Encoding,
) -> None:
    """Write a user's or tool's content as ``content`` and ``images``."""
    if isinstance(content, str):
        if content or own.get("~content") != ABSENT:
            out["content"] = content
        return
    texts: list[str] = []
    images: list[str] = []
    for k, part in enumerate(content):
        p = f"{path}.content[{k}]"
        part_own = enc.own(part.extras, p)
        kind = type(part)
        if kind is TextPart:
            assert isinstance(part, TextPart)
            if part.citations:
                lose_citations(enc, part, p)
            if texts:
                enc.lose(p, "ollama takes one text per message: joined to the text before")
            elif images:
                enc.lose(p, "ollama sends the images of a message after its text")
            texts.append(part.text)
        elif kind is ImagePart:
            assert isinstance(part, ImagePart)
            data = part.data if part.data is not None else _data_url(part.url)
            if data is None:
                enc.lose(p, "ollama cannot carry an image by URL")
                continue
            images.append(data if part_own.get("~data") == "verbatim" else standard_base64(data))
            if part.detail is not None:
                enc.lose(p + ".detail", "ollama has no image detail")
        elif (
            kind is FilePart
            and isinstance(part, FilePart)
            and part.data is not None
            and (part.media_type or "").startswith("image/")
        ):
            images.append(standard_base64(part.data))
        elif isinstance(part, OpaquePart):
            enc.lose(p, block_lost(part.provider, NAME))
        else:
            assert isinstance(part, AudioPart | FilePart)
            enc.lose(p, f"ollama cannot carry a{'n audio' if kind is AudioPart else ' file'} part")
    if texts:
        text = _SEPARATOR.join(texts)
        if text or own.get("~content") != ABSENT:
            out["content"] = text
    if images:
        out["images"] = images


def _data_url(url: str | None) -> str | None:
    """The base64 data of a ``data:`` URL, or ``None`` for any other URL."""
    if url is None or not url.startswith("data:"):
        return None
    head, comma, data = url.partition(",")
    return data if comma and head.endswith(";base64") else None


def _assistant(message: AssistantMessage, path: str, enc: Encoding) -> dict[str, Any]:
    own = enc.own(message.extras, path)
    out: dict[str, Any] = {} if own.get("~role") == ABSENT else {"role": "assistant"}
    content = message.content
    if isinstance(content, str):
        out["content"] = content
    elif content:
        texts: list[str] = []
        thoughts: list[str] = []
        for k, part in enumerate(content):
            p = f"{path}.content[{k}]"
            enc.own(part.extras, p)
            if isinstance(part, TextPart):
                if part.citations:
                    lose_citations(enc, part, p)
                if texts:
                    enc.lose(p, "ollama takes one text per message: joined to the text before")
                texts.append(part.text)
            elif isinstance(part, ReasoningPart):
                if part.signature is not None and part.provider != NAME:
                    enc.lose(p + ".signature", signature_lost(part.provider))
                if part.redacted is not None:
                    enc.lose(p + ".redacted", "redacted reasoning ollama cannot carry")
                if part.text or (part.signature is None and part.redacted is None):
                    thoughts.append(part.text)
            elif isinstance(part, RefusalPart):
                texts.append(part.text)
                enc.lose(p, "ollama has no refusal part; sent as text")
            else:
                enc.lose(p, block_lost(part.provider, NAME))
        if texts:
            out["content"] = _SEPARATOR.join(texts)
        if thoughts:
            out["thinking"] = "".join(thoughts)
    calls = _calls(message, own, path, enc)
    if calls:
        out["tool_calls"] = calls
    return fill(out, own)


def _calls(
    message: AssistantMessage, own: dict[str, Any], path: str, enc: Encoding
) -> list[dict[str, Any]]:
    valid = message.tool_calls
    invalid = message.invalid_tool_calls
    out = [_call(call, f"{path}.tool_calls[{k}]", enc) for k, call in enumerate(valid)]
    if not invalid:
        return out
    bad = [_call(call, f"{path}.invalid_tool_calls[{k}]", enc) for k, call in enumerate(invalid)]
    kinds = own.get("~calls")
    if type(kinds) is not str or not tool_call_order(kinds, len(valid), len(invalid)):
        return out + bad
    good_iter, bad_iter = iter(out), iter(bad)
    return [next(good_iter) if kind == "v" else next(bad_iter) for kind in kinds]


def _call(call: ToolCall | InvalidToolCall, path: str, enc: Encoding) -> dict[str, Any]:
    if type(call) is InvalidToolCall:
        lose_if_read_valid(call, path, enc)
    own = enc.own(call.extras, path)
    form = own.get("~arguments")
    fn: dict[str, Any] = {}
    if call.name is not None:
        fn["name"] = call.name
    if isinstance(call, ToolCall):
        fn["arguments"] = call.arguments if form != "string" else bytes(call.arguments).decode()
    elif form == "string":
        fn["arguments"] = call.arguments
    elif form == "json" or (form is None and is_object(call.arguments)):
        fn["arguments"] = Raw(call.arguments.encode())
    elif form != ABSENT:
        # Another provider's arguments that are not an object: Ollama refuses
        # anything but an object, so the call goes with none.
        fn["arguments"] = {}
        enc.lose(path + ".arguments", "arguments that are not a JSON object are sent as {}")
    out: dict[str, Any] = {"function": fill(fn, _dict(own.get("function")))}
    if call.id is not None and own.get("~id") != DERIVED:
        out["id"] = call.id
    return fill(out, own)


# -- responses ------------------------------------------------------------


def encode_response(response: Response, *, losses: list[Loss] | None = None) -> bytes:
    enc = Encoding(NAME, losses)
    own = enc.own(response.extras, "$")
    out: dict[str, Any] = {}
    if response.model is not None:
        out["model"] = response.model
    if response.id is not None:
        enc.lose("$.id", "ollama responses have no id")
    for k in range(1, len(response.choices)):
        enc.lose(f"$.choices[{k}]", "ollama answers with one message")
    choice = response.choices[0] if response.choices else None
    message = finish = None
    if choice is not None:
        # Ollama has no choice object: its keys are the response's.
        own = {**enc.own(choice.extras, "$.choices[0]"), **own}
        message = choice.message
        finish = choice.finish_reason
        if finish is not None:
            out["done_reason"] = _done_reason(choice.raw_finish_reason, finish, message, enc)
    if message is not None:
        out["message"] = _assistant(message, "$.choices[0].message", enc)
    elif own.get("~message") != ABSENT and "message" not in own:
        out["message"] = {"role": "assistant", "content": ""}
    if own.get("~done") != ABSENT and "done" not in own:
        out["done"] = finish is not None
    usage = response.usage
    if usage is not None:
        usage_own = enc.own(usage.extras, "$.usage")
        absent = usage_own.get("~absent")
        absent = absent if type(absent) is list else ()
        if "prompt_eval_count" not in absent or usage.prompt_tokens:
            out["prompt_eval_count"] = usage.prompt_tokens
        if "eval_count" not in absent or usage.completion_tokens:
            out["eval_count"] = usage.completion_tokens
        enc.lose_counts(usage, "$.usage")
        fill(out, usage_own)
    return encode_body(fill(out, own))


def _done_reason(
    raw: str | int | None,
    finish: FinishReason,
    message: AssistantMessage | None,
    enc: Encoding,
) -> str:
    """The wire's reason: the raw one while it still means ``finish``."""
    finish = reason_of(finish, "$.choices[0].finish_reason")
    meant = None
    if type(raw) is str:
        meant = FINISH.get(raw, FinishReason.OTHER)
        if meant is FinishReason.STOP and _has_calls(message):
            meant = FinishReason.TOOL_CALLS
    wire, lost = write(NAME, finish, raw, meant)
    if lost is not None:
        enc.lose("$.choices[0].finish_reason", lost)
    return wire or "stop"  # never None: ollama has a name for every reason


def _has_calls(message: AssistantMessage | None) -> bool:
    return message is not None and bool(message.tool_calls or message.invalid_tool_calls)


NO_ERROR_FLAG = "ollama has no tool error flag"
