"""Canonical to the Converse wire: ``Converse`` request and response bodies.

Consecutive messages of one wire role are joined into one turn (Bedrock
wants the roles to alternate), unless a ``~turn`` hint says the wire had
two. System and developer messages go to ``system``, in order. The
``bedrock`` extras fill the gaps and their hints restore how the wire had
things (the order of calls among blocks, a result's ``status``).
"""

from __future__ import annotations

from typing import Any

import msgspec
from msgspec import Raw

from ..._content import TextPart
from ..._depth import refuses_depth
from ..._exchange import Choice, ProviderTool, Request, Response
from ..._loss import Loss, cannot_run
from ..._messages import (
    AssistantMessage,
    DeveloperMessage,
    SystemMessage,
    ToolMessage,
    UserMessage,
)
from ..._tools import InvalidToolCall, ToolDefinition
from ..._usage import Usage
from .._finish import reason_of, write
from .._ids import unique_call_ids
from .._lower import DENIED_RESULT, lower
from .._wire import Encoding, derive_id, encode_body, fill
from ._blocks import AFTER, NAME, TURN, assistant_block, assistant_blocks, cache_block, user_block
from ._decode import finish_reason, response_format

__all__ = ["encode_request", "encode_response"]

INNER_CACHE = "bedrock takes a cache point after a tool result, not inside it"
NO_REASONING = f"a reasoning setting: {NAME} has no such setting (models take it their own way)"
_INFERENCE = (("max_tokens", "maxTokens"), ("temperature", "temperature"), ("top_p", "topP"))


def _interleave(content: list[Any], calls: list[Any], order: Any) -> list[Any]:
    """Blocks in the order the ``~order`` hint gives (``c`` content, ``t`` call)."""
    if type(order) is not str:
        return content + calls
    sources = {"c": iter(content), "t": iter(calls)}
    out = [item for key in order if (item := next(sources.get(key, iter(())), None)) is not None]
    for source in sources.values():
        out.extend(source)
    return out


class _Encoder:
    """One encode: the losses, and the turns written so far."""

    __slots__ = ("enc", "turns")

    def __init__(self, enc: Encoding) -> None:
        self.enc = enc
        self.turns: list[dict[str, Any]] = []

    def place(self, role: str, own: dict[str, Any], blocks: list[Any]) -> None:
        """Add ``blocks`` to the last turn of ``role``, or start a turn."""
        turns = self.turns
        if turns and turns[-1]["role"] == role and not own.get("~turn"):
            turns[-1]["content"].extend(blocks)
            return
        if not blocks and own.get("~empty") is not True:
            return
        turn = {"role": role, "content": blocks}
        rest = own.get(TURN)
        turns.append(fill(turn, rest) if type(rest) is dict else turn)

    def user(self, message: UserMessage, path: str) -> None:
        own = self.enc.own(message.extras, path)
        content = message.content
        if type(content) is str:
            blocks: list[Any] = [{"text": content}]
        else:
            blocks = self.parts(content, f"{path}.content")
        self.place("user", own, blocks)

    def parts(self, content: Any, path: str, inner: bool = False) -> list[Any]:
        """The blocks of parts; ``inner``: of a tool result, which holds no ``cachePoint``."""
        blocks = []
        for j, part in enumerate(content):
            block = user_block(part, self.enc, f"{path}[{j}]")
            if block is not None:
                blocks.append(block)
                cache = getattr(part, "cache", None)
                if cache is None:
                    continue
                if not inner:
                    blocks.append(cache_block(cache))
                elif j != len(content) - 1:
                    self.enc.lose(f"{path}[{j}].cache", INNER_CACHE)
        return blocks

    def tool(self, message: ToolMessage, path: str) -> None:
        own = self.enc.own(message.extras, path)
        result: dict[str, Any] = {"toolUseId": message.tool_call_id}
        if "~content" in own:
            if own["~content"] is not None:
                result["content"] = own["~content"]
        elif type(message.content) is str:
            result["content"] = [{"text": message.content}]
        else:
            result["content"] = self.parts(message.content, f"{path}.content", inner=True)
        if message.is_error:
            result["status"] = "error"
        elif own.get("~status") == "success":
            result["status"] = "success"
        turn_own: dict[str, Any] = {key: own[key] for key in ("~turn", TURN) if key in own}
        if TURN in own:  # the keys of the turn, not of the result
            own = {key: value for key, value in own.items() if key != TURN}
        blocks = [{"toolResult": fill(result, own)}]
        cache = message.cache
        if cache is None and type(message.content) is tuple and message.content:
            # The last part's closes the result: the cachePoint after it.
            cache = getattr(message.content[-1], "cache", None)
        elif cache is not None and type(message.content) is tuple and message.content:
            last = getattr(message.content[-1], "cache", None)
            if last is not None:
                self.enc.lose(f"{path}.content[{len(message.content) - 1}].cache", INNER_CACHE)
        if cache is not None:
            blocks.append(cache_block(cache))
        self.place("user", turn_own, blocks)

    def assistant(self, message: AssistantMessage, path: str) -> list[Any]:
        enc = self.enc
        own = enc.own(message.extras, path)
        content = message.content
        blocks: list[Any] = []
        closes = False  # a part or call closes a cache point: a _Closed slot to open
        if isinstance(content, str):
            if content or not (message.tool_calls or message.invalid_tool_calls):
                blocks.append({"text": content})  # else no block: bedrock refuses blank text
        elif content is not None:
            for j, part in enumerate(content):
                if type(part) is TextPart and part.citations:
                    blocks.extend(assistant_blocks(part, enc, f"{path}.content[{j}]"))
                    continue
                block = assistant_block(part, enc, f"{path}.content[{j}]")
                if block is not None:
                    cache = getattr(part, "cache", None)
                    if cache is not None:
                        # One slot for the ~order hint: the part and its cache point.
                        block = _Closed((block, cache_block(cache)))
                        closes = True
                    blocks.append(block)
        calls = []
        for j, call in enumerate(message.tool_calls):
            spec = {"toolUseId": call.id, "name": call.name, "input": call.arguments}
            use: Any = {"toolUse": fill(spec, enc.own(call.extras, f"{path}.tool_calls[{j}]"))}
            if call.cache is not None:
                use = _Closed((use, cache_block(call.cache)))
                closes = True
            calls.append(use)
        for j, bad in enumerate(message.invalid_tool_calls):
            block = _invalid(bad, enc, f"{path}.invalid_tool_calls[{j}]")
            if block is not None:
                calls.append(block)
        blocks = _interleave(blocks, calls, own.get("~order"))
        if closes:
            blocks = [one for block in blocks for one in _blocks_of(block)]
        self.place("assistant", {**own, "~empty": content == ()}, blocks)
        return blocks

    def system(self, message: SystemMessage | DeveloperMessage, path: str) -> list[Any]:
        own = self.enc.own(message.extras, path)
        after = own.get(AFTER)
        cache = [cache_block(message.cache)] if message.cache is not None else []
        return [{"text": message.content}, *cache, *(after if type(after) is list else ())]


class _Closed(tuple[Any, Any]):
    """A block and the ``cachePoint`` after it: one slot of the ``~order`` hint."""

    __slots__ = ()


def _blocks_of(block: Any) -> tuple[Any, ...]:
    return tuple(block) if type(block) is _Closed else (block,)


def _invalid(call: InvalidToolCall, enc: Encoding, path: str) -> Any:
    """A call whose arguments are not an object: sent with ``{}``, said lost."""
    if call.name is None:
        enc.lose(path, "bedrock cannot carry a tool call without a name")
        return None
    call_id = call.id or derive_id("tooluse_", path, call.name, call.arguments)
    enc.lose(f"{path}.arguments", "bedrock needs a JSON object as tool input: sent {}")
    spec = {"toolUseId": call_id, "name": call.name, "input": {}}
    return {"toolUse": fill(spec, enc.own(call.extras, path))}


def _tool(tool: ToolDefinition | ProviderTool, enc: Encoding, path: str) -> Any:
    if type(tool) is ProviderTool:
        if tool.provider == NAME:
            return Raw(bytes(tool.data))  # kept whole, whatever JSON it holds
        enc.lose(path, cannot_run(tool.provider, NAME))
        return None
    assert isinstance(tool, ToolDefinition)
    own = enc.own(tool.extras, path)
    spec: dict[str, Any] = {"name": tool.name}
    if tool.description is not None:
        spec["description"] = tool.description
    if tool.extras is not None and NAME in tool.extras:
        schema: Any = tool.parameters or {"type": "object", "properties": {}}
    else:
        schema = tool.emitted_parameters()
    spec["inputSchema"] = {"json": schema}
    if "~strict" in own:
        spec["strict"] = own["~strict"]
    elif tool.strict and tool.extras is not None and NAME in tool.extras:
        spec["strict"] = True
    return {"toolSpec": fill(spec, own)}


def _tools(request: Request, enc: Encoding) -> list[Any]:
    """The ``toolConfig.tools``: each tool, and a ``cachePoint`` after one that closes a cache."""
    out = []
    for i, tool in enumerate(request.tools):
        block = _tool(tool, enc, f"$.tools[{i}]")
        if block is not None:
            out.append(block)
            if isinstance(tool, ToolDefinition) and tool.cache is not None:
                out.append(cache_block(tool.cache))
    return out


def _tool_config(request: Request, own: dict[str, Any], enc: Encoding) -> Any:
    config: dict[str, Any] = {}
    tools = _tools(request, enc)
    if tools:
        config["tools"] = tools
    choice = request.tool_choice
    if choice is not None:
        enc.own(choice.extras, "$.tool_choice")
        if not tools:
            enc.lose("$.tool_choice", "bedrock takes a tool choice only with tools")
        elif choice.mode == "auto":
            config["toolChoice"] = {"auto": {}}
        elif choice.mode == "required":
            config["toolChoice"] = {"any": {}}
        elif choice.mode == "tool":
            config["toolChoice"] = {"tool": {"name": choice.name}}
        else:
            enc.lose("$.tool_choice", 'bedrock has no tool choice "none"')
    if request.parallel_tool_calls is not None:
        enc.lose("$.parallel_tool_calls", "bedrock has no switch for parallel tool calls")
    rest = own.get("toolConfig")
    if type(rest) is dict:
        return fill(config, rest)
    if config:
        return config
    return rest if "toolConfig" in own else None


def _declared(turns: list[dict[str, Any]], config: Any, enc: Encoding) -> Any:
    """``config`` with the tools the turns call declared, when it declares none.

    Bedrock refuses ``toolUse`` and ``toolResult`` blocks without
    ``toolConfig`` tools; other families take a history of calls without
    the definitions. Each tool called is declared with an open schema.
    """
    names: list[str] = []
    for turn in turns:
        for block in turn["content"]:
            use = block.get("toolUse") if type(block) is dict else None
            if (
                type(use) is dict
                and use.get("name") not in names
                and use.get("type") != "server_tool_use"
            ):
                names.append(use["name"])
    if not names:
        return config
    enc.lose("$.tools", "bedrock needs the tools a history calls: declared with open schemas")
    schema = {"json": {"type": "object"}}
    tools = [{"toolSpec": {"name": name, "inputSchema": schema}} for name in names]
    return {**(config if type(config) is dict else {}), "tools": tools}


def _inference(request: Request, own: dict[str, Any]) -> Any:
    config: dict[str, Any] = {}
    for field, key in _INFERENCE:
        value = getattr(request, field)
        if value is not None:
            config[key] = value
    if request.stop is not None:
        config["stopSequences"] = list(request.stop)
    rest = own.get("inferenceConfig")
    if type(rest) is dict:
        return fill(config, rest)
    if config:
        return config
    return rest if "inferenceConfig" in own else None


def _output(request: Request, own: dict[str, Any], enc: Encoding) -> Any:
    """``outputConfig``: the answer's JSON schema as Converse takes it, and what else it held."""
    form = request.response_format
    rest = own.get("outputConfig")
    if form is None or form.type == "text":
        return rest if "outputConfig" in own else None
    if form.type != "json_schema" or form.schema is None:
        enc.lose("$.response_format", "bedrock takes an answer's shape as a JSON schema only")
        return rest if "outputConfig" in own else None
    sent = own.get("~outputConfig")
    if type(sent) is dict and response_format(sent.get("textFormat")) == form:
        return sent  # as it came
    spec: dict[str, Any] = {"schema": msgspec.json.encode(form.schema).decode()}
    if form.name is not None:
        spec["name"] = form.name
    kept = (form.extras or {}).get(NAME)
    if type(kept) is dict and type(kept.get("description")) is str:
        spec["description"] = kept["description"]
    config: dict[str, Any] = {
        "textFormat": {"type": "json_schema", "structure": {"jsonSchema": spec}}
    }
    return fill(config, rest) if type(rest) is dict else config


@refuses_depth
def encode_request(
    request: Request,
    *,
    losses: list[Loss] | None = None,
    vision: bool = True,
    denied_result: str = DENIED_RESULT,
) -> bytes:
    """Write a Bedrock ``Converse`` request body.

    The model goes in the URL (``/model/{modelId}/converse``), so it is not
    written unless the body it came from had a ``modelId``.

    Parameters
    ----------
    request : Request
        The request, decoded from any provider or built by hand.
    losses : list of Loss, optional
        Receives what Bedrock cannot carry (another family's blocks and
        fields, ``tool_choice`` ``"none"``, ``parallel_tool_calls``...).
    vision : bool, default True
        Whether the model takes images; without vision an image is sent as
        the text read from it, or left out (reported).
    denied_result : str, optional
        The text of the error result sent for a denied tool call that
        nothing answers.

    Examples
    --------
    >>> from chatcodec import Request, system, user
    >>> from chatcodec.providers import bedrock
    >>> import json
    >>> body = bedrock.encode_request(Request((system("Be brief."), user("Hi")), max_tokens=64))
    >>> wire = json.loads(body)
    >>> wire["system"], wire["messages"], wire["inferenceConfig"]
    ([{'text': 'Be brief.'}], [{'role': 'user', 'content': [{'text': 'Hi'}]}], {'maxTokens': 64})
    """
    enc = Encoding(NAME, losses)
    request = unique_call_ids(
        lower(request, enc, vision=vision, denied_result=denied_result, result_names=False), enc
    )
    own = enc.own(request.extras, "$")
    encoder = _Encoder(enc)
    system: list[Any] = []
    for i, message in enumerate(request.messages):
        path = f"$.messages[{i}]"
        kind = type(message)
        if kind is UserMessage:
            encoder.user(message, path)  # type: ignore[arg-type]
        elif kind is AssistantMessage:
            encoder.assistant(message, path)  # type: ignore[arg-type]
        elif kind is ToolMessage:
            encoder.tool(message, path)  # type: ignore[arg-type]
        else:
            if encoder.turns:
                enc.lose(path, "bedrock takes instructions only before the conversation: moved")
            system += encoder.system(message, path)  # type: ignore[arg-type]
    out: dict[str, Any] = {}
    if system:
        out["system"] = system
    if encoder.turns or "~messages" in own:
        out["messages"] = encoder.turns
    config = _tool_config(request, own, enc)
    if (type(config) is not dict or not config.get("tools")) and "~undeclared" not in own:
        config = _declared(encoder.turns, config, enc)
    if config is not None:
        out["toolConfig"] = config
    config = _inference(request, own)
    if config is not None:
        out["inferenceConfig"] = config
    if request.model is not None and own.get("~model") == "body":
        out["modelId"] = request.model
    if request.stream:
        enc.lose("$.stream", "bedrock streams by operation (ConverseStream), not by a field")
    config = _output(request, own, enc)
    if config is not None:
        out["outputConfig"] = config
    _lost_settings(request, enc)
    return encode_body(fill(out, own))


def _lost_settings(request: Request, enc: Encoding) -> None:
    """The canonical settings Converse has no field for, each reported by name.

    Converse's own ``inferenceConfig`` holds the token limit, temperature, top_p
    and stop sequences; anything else goes to the model in
    ``additionalModelRequestFields``, in each model's own terms.
    """
    for value, path, said in (
        (request.top_k, "$.top_k", "top_k sampling"),
        (request.seed, "$.seed", "a seed"),
        (request.presence_penalty, "$.presence_penalty", "a presence penalty"),
        (request.frequency_penalty, "$.frequency_penalty", "a frequency penalty"),
        (request.user, "$.user", "an end user's id"),
    ):
        if value is not None:
            enc.lose(path, f"{said}: {NAME} has no such setting (models take it their own way)")
    if request.reasoning is not None:
        enc.lose("$.reasoning", NO_REASONING)
    if request.n is not None and request.n != 1:
        enc.lose("$.n", f"several answers: {NAME} gives one answer per request")


def _usage(usage: Usage, enc: Encoding) -> dict[str, Any]:
    own = enc.own(usage.extras, "$.usage")
    omit = own.get("~omit") or ()
    cached, written = usage.cached_tokens, usage.cache_write_tokens
    inputs = usage.prompt_tokens - (cached or 0) - (written or 0)
    counts = (
        ("inputTokens", max(inputs, 0)),
        ("outputTokens", usage.completion_tokens),
        ("totalTokens", usage.total),
    )
    out = {key: count for key, count in counts if key not in omit}
    if cached is not None:
        out["cacheReadInputTokens"] = cached
    if written is not None:
        out["cacheWriteInputTokens"] = written
    if usage.reasoning_tokens is not None:
        enc.lose("$.usage.reasoning_tokens", "bedrock does not count reasoning tokens apart")
    return fill(out, own)


def _stop(choice: Choice, enc: Encoding) -> str | None:
    raw, reason = choice.raw_finish_reason, choice.finish_reason
    if reason is None:
        return None  # none known: another family's raw name is not Bedrock's
    reason = reason_of(reason, "$.choices[0].finish_reason")
    wire, lost = write(NAME, reason, raw, finish_reason(raw) if type(raw) is str else None)
    if lost is not None:
        enc.lose("$.choices[0].finish_reason", lost)
    return wire


@refuses_depth
def encode_response(response: Response, *, losses: list[Loss] | None = None) -> bytes:
    """Write a Bedrock ``Converse`` response body.

    The first choice becomes ``output.message`` (Converse has one answer);
    the finish reason is written as received when it still says the same,
    else from the normalized one; ``usage.inputTokens`` leaves out the
    cache reads and writes, as Bedrock counts them.

    Parameters
    ----------
    response : Response
        The response, decoded from any provider or built by hand.
    losses : list of Loss, optional
        Receives what Bedrock cannot carry.

    Examples
    --------
    >>> from chatcodec import Response, Choice, FinishReason, Usage, assistant
    >>> from chatcodec.providers import bedrock
    >>> response = Response((Choice(assistant("Hi!"), FinishReason.STOP),), usage=Usage(3, 2))
    >>> bedrock.encode_response(response)
    b'{"output":{"message":{"role":"assistant","content":[{"text":"Hi!"}]}},"stopReason":"end_turn","usage":{"inputTokens":3,"outputTokens":2,"totalTokens":5}}'
    """
    enc = Encoding(NAME, losses)
    own = enc.own(response.extras, "$")
    out: dict[str, Any] = {}
    for i in range(1, len(response.choices)):
        enc.lose(f"$.choices[{i}]", "bedrock answers with one message")
    if response.choices:
        choice = response.choices[0]
        enc.own(choice.extras, "$.choices[0]")
        if choice.message is not None:
            encoder = _Encoder(enc)
            blocks = encoder.assistant(choice.message, "$.choices[0].message")
            turn = encoder.turns[0] if encoder.turns else {"role": "assistant", "content": blocks}
            role = own.get("~role", "assistant")
            if role == "~absent":
                del turn["role"]
            else:
                turn["role"] = role
            output = own.get("output")
            out["output"] = {"message": turn, **(output if type(output) is dict else {})}
        stop = _stop(choice, enc)
        if stop is not None:
            out["stopReason"] = stop
    if response.usage is not None:
        out["usage"] = _usage(response.usage, enc)
    if response.id is not None:
        enc.lose("$.id", "bedrock responses carry no id")
    if response.model is not None:
        enc.lose("$.model", "bedrock responses do not name the model")
    return encode_body(fill(out, own))
