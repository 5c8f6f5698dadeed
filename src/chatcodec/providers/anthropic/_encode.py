"""Canonical values -> Anthropic Messages wire.

The canonical fields are the data; the anthropic extras only fill the gaps
they leave (:func:`~chatcodec.providers._wire.fill`), and the hints described
in ``_decode`` restore the wire's turn structure and block order.

Messages from another source are fitted to Anthropic's rules: leading system
and developer messages become the top-level ``system``, later ones stay in
place as ``system`` turns (Anthropic takes them in ``messages``); consecutive
messages of the same wire role share one turn, tool results first; tool ids
that Anthropic would refuse are rewritten the same way in the call and in its
result (``derive_id``), which loses nothing.

The messages are written by ``_turns``, their blocks by ``_blocks``; this
module writes the rest of the request (tools, tool choice, output format) and
of the response (stop reason, usage).
"""

from __future__ import annotations

from typing import Any

from ..._content import McpResource
from ..._exchange import ProviderTool, Request, Response, Tool
from ..._frozen import FrozenMap
from ..._loss import Loss, cannot_run, choice_cannot_run
from ..._usage import FinishReason, Usage
from .._finish import reason_of, write
from .._ids import unique_call_ids
from .._lower import DENIED_RESULT, lower
from .._wire import Encoding, encode_body, fill
from ._decode import FINISH, NAME
from ._encode_turns import Writer
from ._settings import write_settings

_MODES = FrozenMap({"auto": "auto", "required": "any", "tool": "tool", "none": "none"})
_KEEP = frozenset({McpResource})
NO_SCHEMA = "anthropic has no JSON output without a schema"  # written by Blocks.part, as a document


# --- requests ---------------------------------------------------------------


def _tool(writer: Writer, tool: Tool, path: str) -> Any:
    if type(tool) is ProviderTool:
        if tool.provider == NAME:
            return tool.data
        writer.enc.lose(path, cannot_run(tool.provider, NAME))
        return None
    assert not isinstance(tool, ProviderTool)
    if not tool.extras and not tool.strict and tool.cache is None:
        # The usual tool, without extras: nothing to fill, the schema as is.
        schema = tool.parameters or tool.emitted_parameters()
        if tool.description is None:
            return {"name": tool.name, "input_schema": schema}
        return {"name": tool.name, "description": tool.description, "input_schema": schema}
    own = writer.enc.own(tool.extras, path)
    out: dict[str, Any] = {"name": tool.name}
    if tool.description is not None:
        out["description"] = tool.description
    out["input_schema"] = tool.emitted_parameters()
    if tool.strict:
        out["strict"] = True
    if tool.cache is not None:
        writer.mark(out, tool.cache)
    return fill(out, own) if own else out


def encode_request(
    request: Request,
    losses: list[Loss] | None = None,
    *,
    vision: bool = True,
    denied_result: str = DENIED_RESULT,
) -> bytes:
    """Write a request body (see the package docstring)."""
    enc = Encoding(NAME, losses)
    request = lower(
        request, enc, vision=vision, denied_result=denied_result, keep=_KEEP, result_names=False
    )
    request = unique_call_ids(request, enc)
    writer = Writer(enc, True)
    own = enc.own(request.extras, "$")
    out: dict[str, Any] = {}
    if request.model is not None:
        out["model"] = request.model
    if request.max_tokens is not None:
        out["max_tokens"] = request.max_tokens
    system, turns = writer.messages(request.messages)
    if system is not None:
        out["system"] = system
    out["messages"] = turns
    sent: list[Any] = []
    if request.tools:
        tools = [_tool(writer, tool, f"$.tools[{k}]") for k, tool in enumerate(request.tools)]
        sent = [tool for tool in tools if tool is not None]
        if sent:
            out["tools"] = sent
    choice, parallel = request.tool_choice, request.parallel_tool_calls
    if choice is not None and len(sent) < len(request.tools):
        # Tools were left out (another provider's server tools): a choice that
        # needs them would be refused.
        names = {tool.get("name") for tool in sent if type(tool) is dict}
        if (choice.mode in ("required", "auto") and not sent) or (
            choice.mode == "tool" and choice.name not in names
        ):
            enc.lose("$.tool_choice", choice_cannot_run(NAME))
            choice = None
    if choice is not None:
        wire: dict[str, Any] = {"type": _MODES[choice.mode]}
        if choice.name is not None:
            wire["name"] = choice.name
        if parallel is not None:
            wire["disable_parallel_tool_use"] = not parallel
        out["tool_choice"] = fill(wire, enc.own(choice.extras, "$.tool_choice"))
    elif parallel is False and sent:
        out["tool_choice"] = {"type": "auto", "disable_parallel_tool_use": True}
    elif parallel is not None and request.tools:
        enc.lose("$.parallel_tool_calls", "a parallel calls switch with no tools left")
    if request.temperature is not None:
        out["temperature"] = request.temperature
    if request.top_p is not None:
        out["top_p"] = request.top_p
    if request.stop is not None:
        out["stop_sequences"] = list(request.stop)
    if request.stream is not None:
        out["stream"] = request.stream
    fmt = request.response_format
    if fmt is not None:
        mine = enc.own(fmt.extras, "$.response_format")
        if fmt.type == "json_schema" and fmt.schema is not None:
            config = own.get("output_config")
            config = dict(config) if type(config) is dict else {}
            config["format"] = fill({"type": "json_schema", "schema": fmt.schema}, mine)
            out["output_config"] = config
            if fmt.name is not None:
                enc.lose("$.response_format.name", "anthropic output formats have no name")
        elif fmt.type != "text":
            enc.lose("$.response_format", NO_SCHEMA)
    write_settings(request, own, out, enc)
    if request.reasoning is not None and "thinking" in own and "thinking" not in out:
        # How thinking is shown (display), kept beside a setting not sent to this model.
        enc.lose(f"$.extras.{NAME}.thinking", "how thinking is shown: no thinking is sent")
        own = {key: value for key, value in own.items() if key != "thinking"}
    return encode_body(fill(out, own) if own else out)


# --- responses --------------------------------------------------------------


def _stop_reason(finish: FinishReason | None, raw: str | int | None, enc: Encoding) -> Any:
    # A reason left unknown is null; else the shared table's name (the raw one
    # while Anthropic reads it as the same).
    if finish is None:
        return None
    finish = reason_of(finish, "$.choices[0].finish_reason")
    meant = FINISH.get(raw, FinishReason.OTHER) if type(raw) is str else None
    wire, lost = write(NAME, finish, raw, meant)
    if lost is not None:
        enc.lose("$.choices[0].finish_reason", lost)
    return wire


def _usage(usage: Usage, enc: Encoding) -> dict[str, Any]:
    own = enc.own(usage.extras, "$.usage")
    # Anthropic's input_tokens leaves out what was read from and written to its cache.
    cached, created = usage.cached_tokens or 0, usage.cache_write_tokens or 0
    out: dict[str, Any] = {
        "input_tokens": max(usage.prompt_tokens - cached - created, 0),
        "output_tokens": usage.completion_tokens,
    }
    if usage.cache_write_tokens is not None:
        out["cache_creation_input_tokens"] = usage.cache_write_tokens
    if usage.cached_tokens is not None:
        out["cache_read_input_tokens"] = usage.cached_tokens
    if usage.reasoning_tokens is not None:
        details = own.get("output_tokens_details")
        details = dict(details) if type(details) is dict else {}
        details["thinking_tokens"] = usage.reasoning_tokens
        out["output_tokens_details"] = details
    total = usage.total_tokens
    if total is not None and total != usage.prompt_tokens + usage.completion_tokens:
        enc.lose("$.usage.total_tokens", "anthropic reports no total apart from its parts")
    return fill(out, own)


def encode_response(response: Response, losses: list[Loss] | None = None) -> bytes:
    """Write a response body (see the package docstring)."""
    enc = Encoding(NAME, losses)
    writer = Writer(enc, False)
    own = enc.own(response.extras, "$")
    out: dict[str, Any] = {}
    if response.id is not None:
        out["id"] = response.id
    out["type"] = own.get("type", "message")
    out["role"] = own.get("role", "assistant")
    if response.model is not None:
        out["model"] = response.model
    content: list[Any] = []
    stop = None
    for k in range(1, len(response.choices)):
        enc.lose(f"$.choices[{k}]", "anthropic responses have one answer")
    if response.choices:
        choice = response.choices[0]
        mine = enc.own(choice.extras, "$.choices[0]")
        if choice.index not in (None, 0):
            enc.lose("$.choices[0].index", "anthropic responses have one answer")
        message = choice.message
        if message is not None:
            path = "$.choices[0].message"
            kept = enc.own(message.extras, path)
            content = writer.assistant(message, kept, path)
            fill(out, kept)
        stop = _stop_reason(choice.finish_reason, choice.raw_finish_reason, enc)
        fill(out, mine)
    out["content"] = content
    out["stop_reason"] = stop
    if response.usage is not None:
        out["usage"] = _usage(response.usage, enc)
    return encode_body(fill(out, own))
