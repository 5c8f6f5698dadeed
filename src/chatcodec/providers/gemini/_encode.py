"""Canonical to Gemini's wire: ``generateContent`` request and response bodies.

The wire is built from the canonical fields; the ``gemini`` extras fill the
gaps (keys chatcodec has no field for) and their ``~`` hints restore how the
wire spelled things: snake_case keys, ids that were derived and not sent,
the order of parts, how contents were split into turns. The parts, tool calls
and tool results inside the turns are written by :mod:`._encode_parts`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from msgspec import Raw

from ..._content import TextPart
from ..._depth import refuses_depth
from ..._exchange import (
    EFFORT_BUDGETS,
    Choice,
    ProviderTool,
    Reasoning,
    Request,
    Response,
)
from ..._frozen import FrozenMap
from ..._loss import Loss, a, cannot_run
from ..._messages import (
    AssistantMessage,
    DeveloperMessage,
    Message,
    SystemMessage,
    ToolMessage,
    UserMessage,
)
from ..._tools import ToolDefinition
from ..._usage import Usage
from .._cache import report_cache
from .._cite import lose_citations
from .._lower import DENIED_RESULT, lower
from .._wire import Encoding, choice_written, encode_body, fill
from ._common import (
    CAMEL,
    NAME,
    NO_PARTS,
    SKIP_SIGNATURE,
    SNAKE,
    finish_out,
    signs_calls,
    spelling,
    to_gemini_schema,
)
from ._encode_parts import _ABSENT, _OBJECT, _fill, _object_reply, _PartEncoder
from ._ground import HINT, KEY, NO_PLACE, text_bounds, write_grounding

__all__ = ["encode_request", "encode_response"]

_CONTAINERS = frozenset(("systemInstruction", "toolConfig", "generationConfig"))
_MODES = FrozenMap({"auto": "AUTO", "none": "NONE", "required": "ANY", "tool": "ANY"})
STREAM = "gemini streams by endpoint, not by a body field"


def _role(out: dict[str, Any], own: Mapping[str, Any], default: str) -> dict[str, Any]:
    """Set the content's role as the wire had it (absent when the hint says so)."""
    role = own.get("~role", default) if "~role" in own else default
    if role is not None:
        out["role"] = role
    return out


def _interleave(groups: dict[str, list[Any]], order: str) -> list[Any]:
    """Parts in the order ``order`` names their groups; what is left, after."""
    out: list[Any] = []
    iters = {key: iter(parts) for key, parts in groups.items()}
    for key in order:
        source = iters.get(key)
        item = next(source, _ABSENT) if source is not None else _ABSENT
        if item is not _ABSENT:
            out.append(item)
    for source in iters.values():
        out.extend(source)
    return out


class _Encoder(_PartEncoder):
    """One encode: the parts of :class:`_PartEncoder`, and the turns, request and response."""

    __slots__ = ("cited", "own_turns")

    def __init__(self, enc: Encoding, k: Mapping[str, str]) -> None:
        super().__init__(enc, k)
        # While a candidate is written: its text parts with citations (item, part, path).
        self.cited: list[tuple[Any, TextPart, str]] | None = None
        # The model turns (by id) whose calls Gemini made: they are sent as they came.
        self.own_turns: set[int] = set()

    # -- messages ---------------------------------------------------------

    def plain_assistant(self, message: AssistantMessage) -> dict[str, Any] | None:
        """:meth:`assistant` of an answer without extras, when its parts are plain.

        Plain: text without extras, calls without extras, no invalid calls.
        ``None`` otherwise.
        """
        if message.invalid_tool_calls:
            return None
        content = message.content
        parts: list[Any] = []
        if type(content) is str:
            parts.append({"text": content})
        elif content is not None:
            for part in content:
                if type(part) is not TextPart or part.extras or part.citations:
                    return None
                parts.append({"text": part.text})
        calls = message.tool_calls
        if calls:
            key = self.k["functionCall"]
            names = self.names
            for call in calls:
                if call.extras:
                    return None
                names[call.id] = call.name
                parts.append({key: {"name": call.name, "args": call.arguments, "id": call.id}})
        return {"role": "model", "parts": parts}

    def assistant(self, message: AssistantMessage, path: str) -> dict[str, Any]:
        if not message.extras:
            plain = self.plain_assistant(message)
            if plain is not None:
                return plain
        own = self.enc.own(message.extras, path)
        parts: list[Any] = []
        content = message.content
        if isinstance(content, str):
            parts.append({"text": content})
        elif content:
            for j, part in enumerate(content):
                where = f"{path}.content[{j}]"
                item = self.assistant_part(part, where)
                if item is not None:
                    parts.append(item)
                    if type(part) is TextPart and part.citations:
                        if self.cited is None:
                            lose_citations(self.enc, part, where, NO_PLACE)
                        else:
                            self.cited.append((item, part, where))
        calls = [
            self.call(call, f"{path}.tool_calls[{j}]") for j, call in enumerate(message.tool_calls)
        ]
        invalid = [
            self.invalid(call, f"{path}.invalid_tool_calls[{j}]")
            for j, call in enumerate(message.invalid_tool_calls)
        ]
        order = own.get("~order")
        if type(order) is str and (calls or invalid):
            parts = _interleave({"c": parts, "t": calls, "i": invalid}, order)
        else:
            parts += calls
            parts += invalid
        out = _role({}, own, "model")
        if parts or NO_PARTS not in own:
            out["parts"] = parts
        if any(NAME in (call.extras or ()) for call in message.tool_calls):
            self.own_turns.add(id(out))  # read from Gemini: no signature is added to it
        return fill(out, own)

    def contents(self, messages: tuple[Message, ...], system: list[Any]) -> tuple[list[Any], Any]:
        """The contents, filling ``system`` with the instruction parts; their role."""
        enc = self.enc
        contents: list[Any] = []
        system_role: Any = _ABSENT
        results: list[Any] | None = None  # parts of an open content of results only
        # plain_result and plain_assistant, inline: most messages have no extras.
        names = self.names
        call_key, result_key = self.k["functionCall"], self.k["functionResponse"]
        message: Any  # the kind tests below are on type(), which mypy does not narrow by
        for i, message in enumerate(messages):
            if not message.extras:
                # The usual message, without extras: no hint to follow.
                kind = type(message)
                if kind is ToolMessage:
                    text = message.content
                    if type(text) is str:
                        out: dict[str, Any] = {}
                        call_id = message.tool_call_id
                        name = message.name or names.get(call_id)
                        if name is not None:
                            out["name"] = name
                        if message.is_error:
                            out["response"] = {"error": text}
                        else:
                            data = text.encode("utf-8", "surrogatepass")
                            if data[:1] != b"{" and _OBJECT.match(data) is None:
                                out["response"] = {"result": text}  # not an object: wrapped
                            elif _object_reply(data):
                                out["response"] = Raw(data)
                            else:
                                out["response"] = {"result": text}
                        out["id"] = call_id
                        if results is not None:
                            results.append({result_key: out})
                        else:
                            results = [{result_key: out}]
                            contents.append({"role": "user", "parts": results})
                        continue
                elif kind is UserMessage:
                    text = message.content
                    if type(text) is str:
                        contents.append({"role": "user", "parts": [{"text": text}]})
                        results = None
                        continue
                elif kind is AssistantMessage and not message.invalid_tool_calls:
                    said = message.content
                    parts: Any = []  # None: not plain
                    if type(said) is str:
                        parts = [{"text": said}]
                    elif said is not None:
                        for piece in said:
                            if type(piece) is not TextPart or piece.extras:
                                parts = None
                                break
                            parts.append({"text": piece.text})
                    if parts is not None:
                        for call in message.tool_calls:
                            if call.extras:
                                parts = None
                                break
                            names[call.id] = call.name
                            parts.append(
                                {
                                    call_key: {
                                        "name": call.name,
                                        "args": call.arguments,
                                        "id": call.id,
                                    }
                                }
                            )
                    if parts:
                        results = None
                        contents.append({"role": "model", "parts": parts})
                        continue
            path = f"$.messages[{i}]"
            if isinstance(message, AssistantMessage):
                turn = self.assistant(message, path)
                results = None
                if "parts" in turn and not turn["parts"]:
                    # Gemini refuses a model turn with no part: never send one (one without
                    # the key, as Gemini sent it, goes back as it came).
                    if message.content:  # every part was lost (and reported)
                        enc.lose(path, "a model turn none of whose parts gemini can carry")
                    else:
                        enc.lose(
                            path, "an empty assistant message: gemini refuses a turn without parts"
                        )
                    continue
                contents.append(turn)
            elif isinstance(message, ToolMessage):
                own = enc.own(message.extras, path)
                part = self.result(message, own, path)
                if results is not None and "~turn" not in own:
                    results.append(part)
                    continue
                results = [part]
                content = _role({}, own, "user")
                content["parts"] = results
                level = own.get("~content")
                if type(level) is dict:
                    fill(content, level)
                contents.append(content)
            elif isinstance(message, UserMessage):
                own = enc.own(message.extras, path)
                body = message.content
                if isinstance(body, str):
                    parts = [{"text": body}]
                else:
                    parts = []
                    for j, piece in enumerate(body):
                        item = self.user_part(piece, f"{path}.content[{j}]")
                        if item is not None:
                            parts.append(item)
                order = own.get("~order")
                if not parts:
                    # Every part was lost (and reported): Gemini refuses an empty turn.
                    continue
                if results is not None and type(order) is str:
                    results[:] = _interleave({"t": results, "u": parts}, order)
                else:
                    content = _role({}, own, "user")
                    content["parts"] = parts
                    contents.append(fill(content, own))
                results = None
            elif isinstance(message, SystemMessage | DeveloperMessage):
                own = enc.own(message.extras, path)
                if contents:
                    enc.lose(path, "an instruction after the conversation began (sent first)")
                if not system and "~role" in own:
                    system_role = own["~role"]
                system.append({"text": message.content})
        return contents, system_role

    # -- request pieces ---------------------------------------------------

    def tools(self, tools: tuple[Any, ...]) -> list[Any]:
        enc = self.enc
        k = self.k
        out: list[Any] = []
        group: list[Any] | None = None
        decl: dict[str, Any]
        for i, tool in enumerate(tools):
            kind = type(tool)
            if kind is ToolDefinition and not tool.extras and group is not None:
                # The usual tool, without extras: no hint to follow, in the open group.
                decl = {} if tool.description is None else {"description": tool.description}
                decl["name"] = tool.name
                if tool.parameters is not None:
                    decl[k["parametersJsonSchema"]] = tool.parameters
                group.append(decl)
                continue
            path = f"$.tools[{i}]"
            if kind is ToolDefinition:
                own = enc.own(tool.extras, path)
                decl = {}
                if tool.description is not None:
                    decl["description"] = tool.description
                decl["name"] = tool.name
                if tool.parameters is not None:
                    style = own.get("~params")
                    if style is None:
                        decl[k["parametersJsonSchema"]] = tool.parameters
                    else:
                        decl["parameters"] = to_gemini_schema(tool.parameters, style)
                item: Any = fill(decl, own)
            elif kind is ProviderTool:
                if tool.provider != NAME:
                    enc.lose(path, cannot_run(tool.provider, NAME))
                    continue
                own = enc.own(tool.extras, path)
                if not own.get("~decl"):
                    out.append(tool.data)
                    group = None
                    continue
                item = tool.data
            else:
                enc.lose(path, f"{a(kind.__name__)} gemini cannot carry")
                continue
            if group is None or "~tool" in own:
                group = []
                out.append({k["functionDeclarations"]: group})
            group.append(item)
        return out

    def tool_config(self, request: Request, keep: Any) -> Any:
        """The ``toolConfig``, after the tools are written (another provider's left out)."""
        config: dict[str, Any] | None = None
        written = sum(
            1
            for t in request.tools
            if type(t) is ToolDefinition or (type(t) is ProviderTool and t.provider == NAME)
        )
        choice = choice_written(request, written, self.enc)
        if choice is not None:
            own = self.enc.own(choice.extras, "$.tool_choice")
            mode = _MODES[choice.mode]
            if choice.mode == "auto" and own.get("~mode") == "VALIDATED":
                mode = "VALIDATED"
            calling: dict[str, Any] = {"mode": mode}
            if choice.mode == "tool":
                calling[self.k["allowedFunctionNames"]] = [choice.name]
            config = {self.k["functionCallingConfig"]: fill(calling, own)}
        if type(keep) is dict:
            config = fill(config or {}, keep)
        return config

    def generation(self, request: Request, keep: Any) -> Any:
        k = self.k
        config: dict[str, Any] = {}
        if request.max_tokens is not None:
            config[k["maxOutputTokens"]] = request.max_tokens
        if request.temperature is not None:
            config["temperature"] = request.temperature
        if request.top_p is not None:
            config[k["topP"]] = request.top_p
        if request.stop is not None:
            config[k["stopSequences"]] = list(request.stop)
        self.settings(request, config, keep)
        response_format = request.response_format
        if response_format is not None:
            path = "$.response_format"
            own = self.enc.own(response_format.extras, path)
            if response_format.type == "text":
                config[k["responseMimeType"]] = "text/plain"
            else:
                config[k["responseMimeType"]] = "application/json"
                schema = response_format.schema
                if response_format.type == "json_schema" and schema is not None:
                    style = own.get("~schema")
                    if style is None:
                        config[k["responseJsonSchema"]] = schema
                    else:
                        config[k["responseSchema"]] = to_gemini_schema(
                            schema, style, "$.response_format.schema"
                        )
            if response_format.name is not None:
                self.enc.lose(f"{path}.name", "a schema name gemini has no field for")
            if response_format.strict is not None:
                self.enc.lose(f"{path}.strict", "a strict flag gemini has no field for")
            fill(config, own)
        if type(keep) is dict:
            fill(config, keep)
        return config if config or type(keep) is dict else None

    def settings(self, request: Request, config: dict[str, Any], keep: Any) -> None:
        """The generation settings beside the sampling ones, into ``config``."""
        k, enc = self.k, self.enc
        for key, value in (
            ("topK", request.top_k),
            ("seed", request.seed),
            ("presencePenalty", request.presence_penalty),
            ("frequencyPenalty", request.frequency_penalty),
            ("candidateCount", request.n),
        ):
            if value is not None:
                config[k.get(key, key)] = value
        if request.user is not None:
            enc.lose("$.user", "an end-user id: gemini has no such setting")
        reasoning = request.reasoning
        if reasoning is None:
            return
        thinking = thinking_config(reasoning, request.model, enc, k)
        if thinking is not None:
            kept = keep.get(k["thinkingConfig"]) if type(keep) is dict else None
            config[k["thinkingConfig"]] = fill(thinking, kept) if type(kept) is dict else thinking

    # -- responses --------------------------------------------------------

    def candidate(self, choice: Choice, path: str) -> dict[str, Any]:
        own = self.enc.own(choice.extras, path)
        out: dict[str, Any] = {}
        message = choice.message
        calls = False
        if message is not None:
            self.cited = []
            out["content"] = content = self.assistant(message, f"{path}.message")
            calls = bool(message.tool_calls or message.invalid_tool_calls)
            cited, self.cited = self.cited, None
            if cited or KEY in own:
                # The wire part of each cited text, by the item written for it.
                places = {id(item): j for j, item in enumerate(content.get("parts") or ())}
                body = message.content if isinstance(message.content, tuple) else ()
                bases = {id(body[k]): b0 for b0, _, k in text_bounds(body)}
                placed = [
                    (places[id(item)], bases[id(part)], part, where) for item, part, where in cited
                ]
                metadata = write_grounding(placed, own.get(KEY), own.get(HINT), self.enc)
                if metadata is not None:
                    out[KEY] = metadata
        where = f"{path}.finish_reason"
        reason = finish_out(
            choice.finish_reason,
            choice.raw_finish_reason,
            calls,
            lambda rule: self.enc.lose(where, rule),
        )
        if reason is not None:
            out[self.k["finishReason"]] = reason
        if choice.index is not None:
            out["index"] = choice.index
        return fill(out, own)

    def usage(self, usage: Usage) -> dict[str, Any]:
        own = self.enc.own(usage.extras, "$.usage")
        omit = own.get("~omit") or ()
        # The normalized prompt counts tool-use prompts, the completion counts
        # thoughts (see usage_of): Gemini counts them apart.
        tool_use = own.get("toolUsePromptTokenCount", own.get("tool_use_prompt_token_count"))
        prompt = usage.prompt_tokens
        if type(tool_use) is int and tool_use > 0:
            prompt = max(prompt - tool_use, 0)
        counts = (
            ("promptTokenCount", prompt),
            (
                "candidatesTokenCount",
                max(usage.completion_tokens - (usage.reasoning_tokens or 0), 0),
            ),
            ("totalTokenCount", usage.total_tokens),
            ("cachedContentTokenCount", usage.cached_tokens),
            ("thoughtsTokenCount", usage.reasoning_tokens),
        )
        out: dict[str, Any] = {}
        for key, value in counts:
            if value is not None and not (value == 0 and key in omit):
                out[self.k[key]] = value
        if usage.cache_write_tokens is not None:
            self.enc.lose(
                "$.usage.cache_write_tokens", "gemini has no count of tokens written to a cache"
            )
        return fill(out, own)


def thinking_config(
    reasoning: Reasoning, model: str | None, enc: Encoding, k: Mapping[str, str] = CAMEL
) -> dict[str, Any] | None:
    """``thinkingConfig`` for a reasoning setting, or None for thinking at the default.

    Gemini 3 takes a level; the models before it a token budget (an effort
    is sent as its budget, and reported). ``k``: the body's spelling of the keys.
    """
    effort, budget = reasoning.effort, reasoning.budget_tokens
    if effort is None and budget is None:
        return None  # Gemini thinks by default
    thinking: dict[str, Any] = {}
    if effort == "none" and budget is None:
        budget = 0  # off: a budget of 0, as Gemini 2.5 takes it
    elif effort is not None and budget is None and not _levels(model):
        budget = EFFORT_BUDGETS[effort]
        rule = f"a reasoning effort: gemini before 3 takes a token budget (sent as {budget})"
        enc.lose("$.reasoning.effort", rule)
    elif effort is not None and effort != "none":
        thinking[k["thinkingLevel"]] = effort
    if budget is not None:
        thinking[k["thinkingBudget"]] = budget
    return thinking


def _levels(model: str | None) -> bool:
    """Whether ``model`` takes a thinking level (Gemini 3, or a model not named)."""
    return model is None or signs_calls(model)


def _sign_calls(contents: list[Any], k: Mapping[str, str], own_turns: set[int]) -> None:
    """Give the first call of each model turn a signature, if it has none.

    Gemini 3 refuses a function call without the ``thoughtSignature`` it
    made it with. A call it did not make (another provider's, or one built
    by hand) gets the placeholder Google documents for that case; a turn read
    from Gemini is sent as it came.
    """
    call_key, key = k["functionCall"], k["thoughtSignature"]
    for content in contents:
        if content.get("role") != "model" or id(content) in own_turns:
            continue
        for i, part in enumerate(content["parts"]):
            if type(part) is dict and call_key in part:
                if "thoughtSignature" not in part and "thought_signature" not in part:
                    content["parts"][i] = {**part, key: SKIP_SIGNATURE}
                break


PLACEHOLDER = (
    "a function call gemini did not make: sent with the placeholder thoughtSignature"
    " gemini 3 takes for one"
)


def _report_placeholders(messages: tuple[Message, ...], enc: Encoding) -> None:
    """Report each call :func:`_sign_calls` gave the placeholder, by its message's path."""
    for i, message in enumerate(messages):
        calls = message.tool_calls if type(message) is AssistantMessage else ()
        if calls and not any(NAME in (call.extras or ()) for call in calls):
            enc.lose(f"$.messages[{i}].tool_calls[0]", PLACEHOLDER)


@refuses_depth
def encode_request(
    request: Request,
    *,
    losses: list[Loss] | None = None,
    vision: bool = True,
    denied_result: str = DENIED_RESULT,
) -> bytes:
    """Write a Gemini ``generateContent`` request body.

    System and developer messages become ``systemInstruction``; tool
    messages become ``functionResponse`` parts of one user turn, with the
    ``name`` of the call they answer; a result that is a JSON object is sent
    as that object, other text as ``{"result": text}`` (an error as
    ``{"error": text}``), which the decoder reads back as that text. A file
    by URL gets the media type its extension names (Gemini needs one); a
    turn none of whose parts can be sent is left out. The model goes in the
    URL, not the body; for a Gemini 3 model, the first function call of a
    model turn that has no ``thoughtSignature`` (a call Gemini did not make)
    gets the placeholder Google documents, ``skip_thought_signature_validator``
    (reported in ``losses``); a call read from Gemini goes back as it came.

    Parameters
    ----------
    request : Request
        The request, decoded from any provider or built by hand.
    losses : list of Loss, optional
        Receives what Gemini cannot carry (parts of other providers, tool
        kinds it cannot run, fields it has none for...).
    vision : bool, default True
        Whether the model takes images; without vision an image is sent as
        the text read from it, or left out (reported).
    denied_result : str, optional
        The text of the error result sent for a denied tool call that
        nothing answers. Other transcript kinds go as text (a resolved file
        reference, an MCP resource) or are left out and reported (a file
        reference not resolved, a part of an unknown kind).

    Examples
    --------
    >>> from chatcodec import Request, user, assistant, tool_call, tool_result
    >>> from chatcodec.providers import gemini
    >>> request = Request((
    ...     user("Weather in Paris?"),
    ...     assistant(tool_calls=[tool_call("c1", "get_weather", {"city": "Paris"})]),
    ...     tool_result("c1", "Sunny"),
    ... ))
    >>> import json
    >>> body = json.loads(gemini.encode_request(request))
    >>> body["contents"][1]["parts"]
    [{'functionCall': {'name': 'get_weather', 'args': {'city': 'Paris'}, 'id': 'c1'}}]
    >>> body["contents"][2]["parts"]
    [{'functionResponse': {'name': 'get_weather', 'response': {'result': 'Sunny'}, 'id': 'c1'}}]
    """
    enc = Encoding(NAME, losses)
    request = lower(request, enc, vision=vision, denied_result=denied_result)
    report_cache(request, enc)
    own = enc.own(request.extras, "$")
    k = spelling(own.get(SNAKE))
    encoder = _Encoder(enc, k)
    out: dict[str, Any] = {}
    system: list[Any] = []
    out["contents"], role = encoder.contents(request.messages, system)
    if signs_calls(request.model):
        _sign_calls(out["contents"], k, encoder.own_turns)
        if enc.losses is not None:
            _report_placeholders(request.messages, enc)
    if system:
        instruction: dict[str, Any] = {} if role is _ABSENT else {"role": role}
        instruction["parts"] = system
        out[k["systemInstruction"]] = instruction
    elif "systemInstruction" in own:
        out[k["systemInstruction"]] = own["systemInstruction"]
    tools = encoder.tools(request.tools) if request.tools else []
    if own.get("~tools") == "object" and len(tools) == 1:
        out["tools"] = tools[0]
    elif tools:
        out["tools"] = tools
    config = encoder.tool_config(request, own.get("toolConfig"))
    if config is not None:
        out[k["toolConfig"]] = config
    config = encoder.generation(request, own.get("generationConfig"))
    if config is not None:
        out[k["generationConfig"]] = config
    if request.model is not None and own.get("~model") == "body":
        out["model"] = request.model
    if request.parallel_tool_calls is not None:
        enc.lose("$.parallel_tool_calls", "gemini has no switch for parallel tool calls")
    if request.stream:
        enc.lose("$.stream", STREAM)
    return encode_body(_fill(out, own, _CONTAINERS))


@refuses_depth
def encode_response(response: Response, *, losses: list[Loss] | None = None) -> bytes:
    """Write a Gemini ``generateContent`` response body.

    One candidate per choice; the finish reason is written as it was
    received when it still says the same, else from the normalized one
    (``tool_calls`` is ``STOP``); usage becomes ``usageMetadata``.

    Parameters
    ----------
    response : Response
        The response, decoded from any provider or built by hand.
    losses : list of Loss, optional
        Receives what Gemini cannot carry.

    Examples
    --------
    >>> from chatcodec import Response, Choice, FinishReason, Usage, assistant
    >>> from chatcodec.providers import gemini
    >>> response = Response((Choice(assistant("Hi!"), FinishReason.STOP),), usage=Usage(3, 2))
    >>> gemini.encode_response(response)
    b'{"candidates":[{"content":{"role":"model","parts":[{"text":"Hi!"}]},"finishReason":"STOP"}],"usageMetadata":{"promptTokenCount":3,"candidatesTokenCount":2}}'
    """
    enc = Encoding(NAME, losses)
    own = enc.own(response.extras, "$")
    encoder = _Encoder(enc, spelling(own.get(SNAKE)))
    out: dict[str, Any] = {}
    if response.choices or own.get("~candidates"):
        out["candidates"] = [
            encoder.candidate(choice, f"$.choices[{i}]")
            for i, choice in enumerate(response.choices)
        ]
    if response.usage is not None:
        out[encoder.k["usageMetadata"]] = encoder.usage(response.usage)
    if response.model is not None:
        out[encoder.k["modelVersion"]] = response.model
    if response.id is not None:
        out[encoder.k["responseId"]] = response.id
    return encode_body(fill(out, own))
