"""Canonical -> OpenAI Chat Completions wire.

The wire is built from the canonical fields first (an edited message is sent
as edited); then :func:`~chatcodec.providers._wire.fill` adds back the keys
the decoder kept in ``extras["openai"]`` wherever the canonical fields left a
gap. What the wire cannot carry is reported through :class:`Encoding`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from ..._content import (
    AudioPart,
    ContentPart,
    FilePart,
    ImagePart,
    OpaquePart,
    TextPart,
)
from ..._depth import refuses_depth
from ..._errors import ValidationError
from ..._exchange import (
    Choice,
    ProviderTool,
    Reasoning,
    Request,
    Response,
    ResponseFormat,
    Tool,
    effort_of,
)
from ..._frozen import FrozenMap
from ..._loss import Loss, a, block_lost, cannot_run
from ..._messages import (
    AssistantMessage,
    DeveloperMessage,
    Message,
    SystemMessage,
    ToolMessage,
    UserMessage,
)
from ..._paths import key_step
from ..._tools import ToolDefinition
from ..._usage import Usage
from .._cite import lose_citations
from .._finish import reason_of, write
from .._ids import unique_call_ids
from .._lower import DENIED_RESULT, lower
from .._options import TOOL_CALL_CONTENT, ToolCallContent
from .._wire import Encoding, choice_written, encode_body, fill
from ._cache import carry_cache
from ._call_ids import nine_char_ids
from ._common import CLOSED_FINISH, FINISH, NAME, audio_format, data_url, normalize_finish
from ._dialect import OPENAI, Dialect, DialectEncoding
from ._encode_assistant import assistant_wire

__all__ = ["NO_ERROR_FLAG", "encode_request", "encode_response"]

DeveloperRole = Literal["developer", "system"]
_NO_CONTENT: Mapping[str, Any] = FrozenMap({"null": None, "empty": ""})

DEFAULT_SCHEMA_NAME = "response"
MOVED = "openai tool results hold only text: sent in a user message after"
"""The loss of a tool result's image, audio or file: sent in a user message after the results."""
"""The name a JSON schema response format gets when it has none."""


# -- requests -------------------------------------------------------------------


@refuses_depth
def encode_request(
    request: Request,
    *,
    losses: list[Loss] | None = None,
    developer_role: DeveloperRole = "developer",
    vision: bool = True,
    denied_result: str = DENIED_RESULT,
    tool_call_content: ToolCallContent = "omit",
    dialect: Dialect = OPENAI,
) -> bytes:
    """Write an OpenAI Chat Completions request body.

    A request from another provider is fitted to OpenAI's rules: tool
    messages come right after the assistant message whose calls they answer
    (consecutive assistant messages with calls are joined); the images and
    files of a tool result go in a user message after the results (reported:
    they no longer belong to the result); a message none of whose parts can
    be sent is left out, and so is a tool choice whose tools were; a JSON
    schema format without a name is named ``"response"``.

    Parameters
    ----------
    request : Request
        The canonical request (decoded from any provider, or built by hand).
    losses : list of Loss, optional
        Where to report what the wire cannot carry (other providers' blocks
        and fields, audio by URL, a tool result's error flag...).
    developer_role : {"developer", "system"}, default "developer"
        The role a :class:`~chatcodec.DeveloperMessage` is sent as; some
        models and servers refuse ``developer``.
    vision : bool, default True
        Whether the model takes images; without vision an image is sent as
        the text read from it, or left out (reported).
    denied_result : str, optional
        The text of the error result sent for a denied tool call that
        nothing answers. Other transcript kinds go as text (a resolved file
        reference, an MCP resource) or are left out and reported (a file
        reference not resolved, a part of an unknown kind).
    tool_call_content : {"omit", "null", "empty"}, default "omit"
        What an assistant message without text (one that only calls tools)
        sends as ``content``: nothing, ``null``, or ``""`` for servers that
        refuse the others. A message decoded from an OpenAI body that had
        ``"content": null`` sends it back whatever this says; with the
        default, a same-provider round trip writes what was read.
    dialect : Dialect, optional
        The service written for (see
        :data:`~chatcodec.providers.openai.DIALECTS`): where reasoning goes
        (DeepSeek's ``reasoning_content``, OpenRouter's ``reasoning_details``
        with each signature's family...), Gemini's call signatures, Mistral's
        tool-call ids. :func:`chatcodec.providers.get` gives a codec that
        passes it (``providers.get("deepseek")``).

    Returns
    -------
    bytes
        The JSON body.

    Examples
    --------
    >>> from chatcodec import Request, developer, user
    >>> from chatcodec.providers import openai
    >>> request = Request((developer("Be brief."), user("Hi")), model="o3-mini")
    >>> print(openai.encode_request(request, developer_role="system").decode())
    {"model":"o3-mini","messages":[{"role":"system","content":"Be brief."},{"role":"user",...}]}
    """
    enc = DialectEncoding(NAME, losses, dialect)
    request = unique_call_ids(lower(request, enc, vision=vision, denied_result=denied_result), enc)
    if dialect.nine_char_ids:
        request = nine_char_ids(request)
    request = carry_cache(request, enc)
    own = enc.own(request.extras, "$")
    out: dict[str, Any] = {}
    if request.model is not None:
        out["model"] = request.model
    if tool_call_content not in TOOL_CALL_CONTENT:
        raise ValidationError("must be 'omit', 'null' or 'empty'", "$.tool_call_content")
    out["messages"] = _messages(request.messages, enc, developer_role, tool_call_content)
    sent: list[Any] = []
    if request.tools:
        key, write = ("functions", _function) if own.get("~functions") else ("tools", _tool)
        wire = [write(t, f"$.tools[{i}]", enc) for i, t in enumerate(request.tools)]
        sent = [t for t in wire if t is not None]
        if sent:
            out[key] = sent
    choice = choice_written(request, len(sent), enc)
    if choice is not None:
        if own.get("~function_call"):
            if choice.mode == "tool":
                out["function_call"] = {"name": choice.name}
            elif choice.mode == "required":
                enc.lose("$.tool_choice", "openai functions cannot be required")
            else:
                out["function_call"] = choice.mode
        elif choice.mode == "tool":
            forced: dict[str, Any] = {"function": {"name": choice.name}}
            if own.get("~tool_choice") != "untyped":
                forced = {"type": "function", **forced}
            out["tool_choice"] = forced
        elif choice.mode == "required" and own.get("~tool_choice") == "any":
            out["tool_choice"] = "any"
        else:
            out["tool_choice"] = choice.mode
        if choice.extras:
            fill(out, enc.own(choice.extras, "$.tool_choice"))
    if request.parallel_tool_calls is not None:
        if sent or not request.tools:
            out["parallel_tool_calls"] = request.parallel_tool_calls
        else:
            enc.lose("$.parallel_tool_calls", "a parallel calls switch with no tools left")
    if request.max_tokens is not None:
        out[own.get("~max_tokens", "max_tokens")] = request.max_tokens
    if request.temperature is not None:
        out["temperature"] = request.temperature
    if request.top_p is not None:
        out["top_p"] = request.top_p
    if request.stop is not None:
        stop = request.stop
        if own.get("~stop") == "str" and len(stop) == 1:
            out["stop"] = stop[0]
        else:
            out["stop"] = list(stop)
    if request.stream is not None:
        out["stream"] = request.stream
    if request.response_format is not None:
        out["response_format"] = _response_format(request.response_format, enc)
    _settings(request, own, out, enc)
    return encode_body(fill(out, own))


def _settings(request: Request, own: dict[str, Any], out: dict[str, Any], enc: Encoding) -> None:
    """The generation settings beside the sampling ones."""
    if request.seed is not None:
        out[own.get("~seed", "seed")] = request.seed
    if request.presence_penalty is not None:
        out["presence_penalty"] = request.presence_penalty
    if request.frequency_penalty is not None:
        out["frequency_penalty"] = request.frequency_penalty
    if request.n is not None:
        out["n"] = request.n
    if request.user is not None:
        out["user"] = request.user
    if request.top_k is not None:
        if "~top_k" in own:  # a dialect's own top_k, sent back
            out["top_k"] = request.top_k
        else:
            enc.lose("$.top_k", "top_k sampling: openai has no such setting")
    if request.reasoning is not None:
        effort = reasoning_effort(request.reasoning, enc)
        if effort is not None:
            out["reasoning_effort"] = effort


def reasoning_effort(reasoning: Reasoning, enc: Encoding) -> str | None:
    """``reasoning_effort`` for a reasoning setting (a budget as its nearest effort, reported)."""
    if reasoning.effort is not None:
        return reasoning.effort
    if reasoning.budget_tokens is None:
        return None  # thinking at the provider's default: nothing to send
    effort = effort_of(reasoning.budget_tokens)
    rule = f"a thinking budget: {NAME} takes an effort, not tokens (sent as {effort!r})"
    enc.lose("$.reasoning.budget_tokens", rule)
    return effort


def _response_format(rf: ResponseFormat, enc: Encoding) -> dict[str, Any]:
    own = enc.own(rf.extras, "$.response_format")
    out: dict[str, Any] = {"type": rf.type}
    inner_own = own.get("~json_schema")
    if rf.type == "json_schema" or rf.name is not None or rf.schema is not None or inner_own:
        spec: dict[str, Any] = {}
        if rf.name is not None:
            spec["name"] = rf.name
        elif (
            rf.type == "json_schema"
            and own.get("~name") != "absent"
            and not (inner_own and "name" in inner_own)
        ):
            # OpenAI requires a name; other providers' schemas have none.
            spec["name"] = DEFAULT_SCHEMA_NAME
        if rf.schema is not None:
            spec["schema"] = rf.schema
        if rf.strict is not None:
            spec["strict"] = rf.strict
        out["json_schema"] = fill(spec, inner_own or {})
    return fill(out, own)


def _tool(tool: Tool, path: str, enc: Encoding) -> Any:
    if isinstance(tool, ProviderTool):
        if tool.provider == NAME:
            return tool.data
        enc.lose(path, cannot_run(tool.provider, NAME))
        return None
    own = enc.own(tool.extras, path)
    out: dict[str, Any] = {} if "~type" in own else {"type": "function"}
    out["function"] = _definition(tool, own)
    return fill(out, own)


def _function(tool: Tool, path: str, enc: Encoding) -> Any:
    if isinstance(tool, ProviderTool):
        if tool.provider == NAME:
            return tool.data
        enc.lose(path, cannot_run(tool.provider, NAME))
        return None
    return _definition(tool, enc.own(tool.extras, path))


def _definition(tool: ToolDefinition, own: dict[str, Any]) -> dict[str, Any]:
    fn: dict[str, Any] = {"name": tool.name}
    if tool.description is not None:
        fn["description"] = tool.description
    if tool.strict and "~asis" not in own:
        fn["parameters"] = tool.emitted_parameters()
    elif tool.parameters is not None:
        fn["parameters"] = tool.parameters
    if tool.strict:
        fn["strict"] = True
    inner = own.get("~function")
    return fill(fn, inner) if inner else fn


def _messages(
    messages: tuple[Message, ...],
    enc: DialectEncoding,
    developer_role: DeveloperRole,
    no_content: ToolCallContent = "omit",
) -> list[Any]:
    """The wire messages, in the order OpenAI takes them.

    OpenAI wants the tool messages right after the assistant message whose
    calls they answer, and only text in them. Anthropic and Gemini put
    results and user text in one turn, so a result may come after the
    user's text: it is moved up (the order of results and of other
    messages is kept). Images and files of a result go in one user message
    after the results, as pydantic-ai and LangChain send them. Gemini
    joins consecutive model contents into one turn whose calls are answered
    together: they are joined into one assistant message.
    """
    out: list[Any] = []
    i = 0
    while i < len(messages):
        m = messages[i]
        wire = _message(m, i, enc, developer_role, no_content=no_content)
        i += 1
        if not isinstance(m, AssistantMessage) or not (m.tool_calls or m.invalid_tool_calls):
            if wire is not None:
                out.append(wire)
            continue
        ids = _call_ids(m)
        while i < len(messages) and isinstance(nxt := messages[i], AssistantMessage):
            more = _message(nxt, i, enc, developer_role, no_content=no_content)
            if more is not None:
                wire = more if wire is None else _join(wire, more, f"$.messages[{i}]", enc)
            ids |= _call_ids(nxt)
            i += 1
        if wire is not None:
            out.append(wire)
        end = i
        while end < len(messages) and not isinstance(messages[end], AssistantMessage):
            end += 1
        turn = range(i, end)
        answers = [k for k in turn if _answers(messages[k], ids)]
        moved: list[Any] = []
        for k in answers:
            wire = _message(messages[k], k, enc, developer_role, moved)
            if wire is not None:
                out.append(wire)
        if moved:
            out.append({"role": "user", "content": moved})
        for k in turn:
            if k not in answers:
                wire = _message(messages[k], k, enc, developer_role)
                if wire is not None:
                    out.append(wire)
        i = end
    return out


def _call_ids(m: AssistantMessage) -> set[str]:
    return {c.id for c in m.tool_calls} | {c.id for c in m.invalid_tool_calls if c.id}


def _join(first: dict[str, Any], second: dict[str, Any], path: str, enc: Encoding) -> Any:
    """One assistant message from two in a row (the second at ``path``)."""
    out = dict(first)
    for key, value in second.items():
        if key == "tool_calls":
            # An explicit null kept from the source adds no calls.
            out[key] = [*(out.get(key) or ()), *(value or ())]
        elif key == "content":
            before, after = _text_list(out.get(key)), _text_list(value)
            if before and after:
                enc.lose(path, "an assistant message openai joins with the one before")
                out[key] = before + after
            elif after:
                out[key] = value
        elif key not in out:
            out[key] = value
        elif out[key] != value:
            enc.lose(
                f"{path}.extras.openai{key_step(key)}", "a field of a joined assistant message"
            )
    return out


def _text_list(content: Any) -> list[Any]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}] if content else []
    return content if isinstance(content, list) else []


def _answers(m: Message, ids: set[str]) -> bool:
    return isinstance(m, ToolMessage) and m.tool_call_id in ids


def _message(
    m: Message,
    index: int,
    enc: DialectEncoding,
    developer_role: DeveloperRole,
    moved: list[Any] | None = None,
    *,
    no_content: ToolCallContent = "omit",
) -> dict[str, Any] | None:
    """One wire message; ``None`` when nothing of it can be sent (reported)."""
    path = f"$.messages[{index}]"
    own = enc.own(m.extras, path)
    if isinstance(m, UserMessage):
        content = m.content
        parts = content if isinstance(content, str) else _parts(content, path, enc)
        if not parts:
            enc.lose(path, "a user message none of whose parts openai can carry")
            return None
        out: dict[str, Any] = {"role": "user", "content": parts}
    elif isinstance(m, AssistantMessage):
        out = assistant_wire(m, own, path, enc)
        if m.content and not own and out.keys() <= {"role"}:
            enc.lose(path, "an assistant message none of whose parts openai can carry")
            return None
        if no_content != "omit" and "content" not in out and "content" not in own:
            # After the role, where OpenAI's own clients write it.
            head = {"role": out.pop("role")} if "role" in out else {}
            out = {**head, "content": _NO_CONTENT[no_content], **out}
    elif isinstance(m, ToolMessage):
        out = _tool_message(m, own, path, enc, moved)
    else:
        role = "system" if isinstance(m, SystemMessage) else developer_role
        out = {"role": role, "content": _instruction(m, own)}
    return fill(out, own)


def _instruction(m: SystemMessage | DeveloperMessage, own: dict[str, Any]) -> Any:
    text = m.content
    parts = own.get("~parts")
    if not parts or sum(n for n, _ in parts) != len(text):
        return text
    out = []
    at = 0
    for n, rest in parts:
        out.append(fill({"type": "text", "text": text[at : at + n]}, rest))
        at += n
    return out


def _tool_message(
    m: ToolMessage, own: dict[str, Any], path: str, enc: Encoding, moved: list[Any] | None
) -> dict[str, Any]:
    out: dict[str, Any] = {"role": own.get("~role", "tool")}
    content = m.content
    if isinstance(content, str):
        if content or "~content" not in own:
            out["content"] = content
        elif own["~content"] is None:
            out["content"] = None
    elif moved is not None and "~media" not in own and any(_media(part) for part in content):
        texts = []
        for j, part in enumerate(content):
            at = f"{path}.content[{j}]"
            if not _media(part):
                wire = _part(part, at, enc)
                if wire is not None:
                    texts.append(wire)
                continue
            wire = _part(part, at, enc)
            if wire is not None:
                enc.lose(at, MOVED)
                moved.append(wire)
        out["content"] = texts or ""
    else:
        out["content"] = _parts(content, path, enc)
    if own.get("~id") != "derived" and "~role" not in own:
        out["tool_call_id"] = m.tool_call_id
    if m.name is not None:
        out["name"] = m.name
    if m.is_error:
        enc.lose(f"{path}.is_error", NO_ERROR_FLAG)
    return out


def _parts(parts: tuple[ContentPart, ...], path: str, enc: Encoding) -> list[Any]:
    out = []
    for j, part in enumerate(parts):
        wire = _part(part, f"{path}.content[{j}]", enc)
        if wire is not None:
            out.append(wire)
    return out


def _media(part: ContentPart) -> bool:
    return isinstance(part, ImagePart | AudioPart | FilePart)


def _part(part: ContentPart, path: str, enc: Encoding) -> Any:
    if isinstance(part, OpaquePart):
        if part.provider == NAME:
            return part.data
        enc.lose(path, block_lost(part.provider, NAME))
        return None
    own = enc.own(part.extras, path)
    inner_own = own.get("~inner")
    if isinstance(part, TextPart):
        if part.citations:
            lose_citations(enc, part, path, "openai has annotations in answers only")
        return fill({"type": "text", "text": part.text}, own)
    if isinstance(part, ImagePart):
        url = part.url if part.url is not None else data_url(part.media_type or "", part.data or "")
        if own.get("~str"):
            return fill({"type": "image_url", "image_url": url}, own)
        spec: dict[str, Any] = {"url": url}
        if part.detail is not None:
            spec["detail"] = part.detail
        return fill({"type": "image_url", "image_url": fill(spec, inner_own or {})}, own)
    if isinstance(part, AudioPart):
        if part.data is None or part.media_type is None:
            enc.lose(path, "openai cannot carry audio by URL")
            return None
        spec = {"data": part.data, "format": audio_format(part.media_type)}
        return fill({"type": "input_audio", "input_audio": fill(spec, inner_own or {})}, own)
    if not isinstance(part, FilePart):
        enc.lose(path, f"{a(str(type(part).__struct_config__.tag))} part openai cannot carry")
        return None
    if part.url is not None and own.get("~type") != "document_url":
        # Only Mistral's document_url takes a file by URL; OpenAI refuses it.
        enc.lose(path, "a file by URL: openai takes a file as data or a file id")
        return None
    return _file(part, own, inner_own)


def _file(part: FilePart, own: dict[str, Any], inner_own: dict[str, Any] | None) -> Any:
    if part.data is not None:
        if own.get("~raw") or part.media_type is None:
            data = part.data
        else:
            data = data_url(part.media_type, part.data)
        if own.get("~type") == "document_url":
            return fill({"type": "document_url", "document_url": data}, own)
        spec: dict[str, Any] = {"file_data": data}
    elif part.file_id is not None:
        spec = {"file_id": part.file_id}
    else:  # by URL, as Mistral's document_url sent it
        return fill({"type": "document_url", "document_url": part.url}, own)
    if part.filename is not None:
        spec["filename"] = part.filename
    return fill({"type": "file", "file": fill(spec, inner_own or {})}, own)


# -- responses ------------------------------------------------------------------


@refuses_depth
def encode_response(
    response: Response, *, losses: list[Loss] | None = None, dialect: Dialect = OPENAI
) -> bytes:
    """Write an OpenAI Chat Completions response body.

    A response OpenAI did not send (another provider's, or one built by
    hand) gets every key OpenAI's ``ChatCompletion`` requires: ``"object":
    "chat.completion"``, ``created`` (0: no creation time is known), ``id``
    and ``model`` (``""`` when unknown), and a choice's message and finish
    reason (``"stop"`` when the source gave none).

    Parameters
    ----------
    response : Response
        The canonical response (from any provider).
    losses : list of Loss, optional
        Where to report what the wire cannot carry.
    dialect : Dialect, optional
        The service written for, as for :func:`encode_request`.

    Returns
    -------
    bytes
        The JSON body.

    Examples
    --------
    >>> from chatcodec import Choice, FinishReason, Response, Usage, assistant
    >>> from chatcodec.providers import openai
    >>> response = Response(
    ...     (Choice(assistant("Hi!"), FinishReason.STOP),), id="r1", usage=Usage(5, 2)
    ... )
    >>> openai.encode_response(response)
    b'{"id":"r1","choices":[{"index":0,"message":{"role":"assistant","content":"Hi!"},"finish_reason":"stop"}],"created":0,"model":"","object":"chat.completion","usage":{"prompt_tokens":5,"completion_tokens":2,"total_tokens":7}}'
    """
    enc = DialectEncoding(NAME, losses, dialect)
    own = enc.own(response.extras, "$")
    # A response OpenAI did not send (another provider's, or built by hand)
    # gets the keys the SDK's ChatCompletion requires; OpenAI's own keeps its.
    foreign = "object" not in own and "~object" not in own
    out: dict[str, Any] = {}
    if response.id is not None:
        out["id"] = response.id
    elif foreign:
        out["id"] = ""
    if response.choices or "~choices" not in own:
        out["choices"] = [
            _choice(c, i, f"$.choices[{i}]", enc, foreign) for i, c in enumerate(response.choices)
        ]
    if foreign:
        out["created"] = 0  # no creation time is known
    if response.model is not None:
        out["model"] = response.model
    elif foreign:
        out["model"] = ""
    if foreign:
        out["object"] = "chat.completion"
    if response.usage is not None:
        out["usage"] = _usage(response.usage, enc)
    return encode_body(fill(out, own))


def _choice(
    choice: Choice, i: int, path: str, enc: DialectEncoding, foreign: bool
) -> dict[str, Any]:
    own = enc.own(choice.extras, path)
    out: dict[str, Any] = {}
    if choice.index is not None:
        out["index"] = choice.index
    elif "~index" not in own:
        out["index"] = i
    if choice.message is not None:
        m = choice.message
        m_own = enc.own(m.extras, f"{path}.message")
        out["message"] = fill(
            assistant_wire(m, m_own, f"{path}.message", enc, response=True), m_own
        )
    elif foreign:
        out["message"] = {"role": "assistant", "content": None}  # nothing was said
    raw = choice.raw_finish_reason
    reason = choice.finish_reason
    if reason is None and type(raw) is str and raw in FINISH and FINISH[raw] is None:
        out["finish_reason"] = raw  # a dialect's "" for no reason, as sent
    elif reason is not None:
        reason = reason_of(reason, f"{path}.finish_reason")
        # A name outside OpenAI's set (a dialect's "error", an unknown one) is
        # OpenAI's own only when its decoder said so: another family's is
        # written as the nearest name OpenAI's clients take, and reported.
        meant = (
            normalize_finish(raw)
            if type(raw) is str and (raw in CLOSED_FINISH or "~finish" in own)
            else None
        )
        wire, lost = write(NAME, reason, raw, meant)
        if lost is not None:
            enc.lose(f"{path}.finish_reason", lost)
        out["finish_reason"] = wire
    elif foreign:
        out["finish_reason"] = "stop"  # required; the source said the answer ended, not why
    return fill(out, own)


def _usage(usage: Usage, enc: Encoding) -> dict[str, Any]:
    own = enc.own(usage.extras, "$.usage")
    absent = own.get("~absent") or ()
    out: dict[str, Any] = {}
    if "prompt_tokens" not in absent or usage.prompt_tokens:
        out["prompt_tokens"] = usage.prompt_tokens
    if "completion_tokens" not in absent or usage.completion_tokens:
        out["completion_tokens"] = usage.completion_tokens
    if usage.total_tokens is not None:
        out["total_tokens"] = usage.total_tokens
    elif "total_tokens" not in absent:
        out["total_tokens"] = usage.total
    if usage.cached_tokens is not None or usage.cache_write_tokens is not None:
        details = own.get("prompt_tokens_details")
        prompt = dict(details) if isinstance(details, dict) else {}
        if usage.cached_tokens is not None:
            prompt["cached_tokens"] = usage.cached_tokens
        if usage.cache_write_tokens is not None:
            prompt["cache_write_tokens"] = usage.cache_write_tokens
        out["prompt_tokens_details"] = prompt
    if usage.reasoning_tokens is not None:
        details = own.get("completion_tokens_details")
        out["completion_tokens_details"] = {
            **(details if isinstance(details, dict) else {}),
            "reasoning_tokens": usage.reasoning_tokens,
        }
    return fill(out, own)


NO_ERROR_FLAG = "openai has no error flag for tool results"
