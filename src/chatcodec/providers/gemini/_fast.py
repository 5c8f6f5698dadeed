"""The fast path of the Gemini response decoder: typed wire Structs for the usual shape.

Most bodies have one shape: camelCase keys, candidates whose ``model``
content holds text, thought and ``functionCall`` parts (each maybe with a
``thoughtSignature``), and ``usageMetadata`` with its counts. msgspec decodes
such a body straight into the private Structs below, in C, checking every
type on the way; the mapping to the canonical form is then a handful of
attribute reads. ``UNSET`` defaults tell an absent key from a ``null``.

The shape is every family's (:mod:`.._fastpath`). Any body the Structs do
not fit (a snake_case key, a ``null`` where the general path keeps the value,
an error body, an ``inlineData`` or code execution part...), a shape the
mapping does not build (a part that is neither text nor a call, a content
without parts, a call without a name) and a value a canonical constructor
refuses (a negative count) go to the general path
(:func:`._decode.response_from`), which gives the same result. Values
the general path keeps as sent (``safetyRatings``, ``promptTokensDetails``...)
are decoded as builtins, so both paths build equal records. Calls without an
id get the id the general path derives, from the same position and bytes.
"""

from __future__ import annotations

from hashlib import blake2b as _blake2b
from typing import Any, Literal

import msgspec
from msgspec import UNSET, Raw, UnsetType

from ..._content import ReasoningPart, TextPart
from ..._exchange import Choice, Response
from ..._messages import AssistantMessage
from ..._tools import ToolCall
from ..._usage import FinishReason, Usage
from .._fastpath import GIVE_UP, Wire, carrier
from ._common import _FINISH_NAMES, NAME, finish_reason, mark_unsigned
from ._ground import read_grounding

__all__ = ["fast_response"]

_encode = msgspec.json.Encoder().encode
# Calls without arguments share one (immutable) Raw.
_NO_ARGS = Raw(b"{}")
_OTHER = FinishReason.OTHER
_STOP = FinishReason.STOP
_TOOL_CALLS = FinishReason.TOOL_CALLS


class _Other(Exception):
    """A shape the fast path does not build: the general path does."""


class _Wire(Wire, rename="camel"):
    """Base of the wire Structs: camelCase keys."""


class _Call(_Wire):
    name: str
    args: dict[str, Any] | UnsetType = UNSET
    id: str | UnsetType = UNSET


class _Part(_Wire):
    text: str | UnsetType = UNSET
    function_call: _Call | UnsetType = UNSET
    thought: bool | UnsetType = UNSET
    thought_signature: str | UnsetType = UNSET


class _Content(_Wire):
    parts: list[_Part]
    # Another (or no) role is hinted by the general path.
    role: Literal["model"]


class _Candidate(_Wire):
    content: _Content | UnsetType = UNSET
    finish_reason: str | int | UnsetType = UNSET
    index: int | UnsetType = UNSET
    finish_message: Any = UNSET
    safety_ratings: Any = UNSET
    citation_metadata: Any = UNSET
    avg_logprobs: Any = UNSET
    grounding_metadata: Any = UNSET
    logprobs_result: Any = UNSET
    url_context_metadata: Any = UNSET


class _Usage(_Wire):
    prompt_token_count: int | UnsetType = UNSET
    candidates_token_count: int | UnsetType = UNSET
    total_token_count: int | UnsetType = UNSET
    cached_content_token_count: int | UnsetType = UNSET
    thoughts_token_count: int | UnsetType = UNSET
    prompt_tokens_details: Any = UNSET
    candidates_tokens_details: Any = UNSET
    cache_tokens_details: Any = UNSET
    tool_use_prompt_token_count: Any = UNSET
    tool_use_prompt_tokens_details: Any = UNSET
    traffic_type: Any = UNSET
    service_tier: Any = UNSET


class _Response(_Wire):
    candidates: list[_Candidate] | UnsetType = UNSET
    usage_metadata: _Usage | UnsetType = UNSET
    model_version: str | UnsetType = UNSET
    response_id: str | UnsetType = UNSET
    create_time: Any = UNSET
    prompt_feedback: Any = UNSET


_decoder = msgspec.json.Decoder(_Response)
_carry_candidate = carrier(
    _Candidate, "finish_message", "safety_ratings", "citation_metadata", "avg_logprobs",
    "grounding_metadata", "logprobs_result", "url_context_metadata",
)  # fmt: skip
_carry_usage = carrier(
    _Usage, "prompt_tokens_details", "candidates_tokens_details", "cache_tokens_details",
    "tool_use_prompt_token_count", "tool_use_prompt_tokens_details", "traffic_type",
    "service_tier",
)  # fmt: skip


def fast_response(body: bytes | str) -> Response | None:
    """The canonical response of ``body`` if it has the usual shape, else None.

    None also for a body that is not JSON or is an error body: the general
    path raises the error.
    """
    try:
        r = _decoder.decode(body)
        own: dict[str, Any] = {}
        if r.create_time is not UNSET:
            own["createTime"] = r.create_time
        if r.prompt_feedback is not UNSET:
            own["promptFeedback"] = r.prompt_feedback
        candidates = r.candidates
        choices: tuple[Choice, ...] = ()
        if type(candidates) is list:
            if len(candidates) == 1:
                choices = (_candidate(candidates[0], 0),)
            elif candidates:
                choices = tuple([_candidate(c, k) for k, c in enumerate(candidates)])
            else:
                own["~candidates"] = "empty"
        u = r.usage_metadata
        rid = r.response_id
        model = r.model_version
        return Response(
            choices,
            None if rid is UNSET else rid,
            None if model is UNSET else model,
            None if u is UNSET else _usage(u),
            extras={NAME: own} if own else None,
        )
    except (*GIVE_UP, _Other):
        return None


def _candidate(c: _Candidate, k: int) -> Choice:
    own: dict[str, Any] = {}
    _carry_candidate(c, own)
    content = c.content
    message = None
    if content is not UNSET:
        if not content.parts:
            raise _Other  # kept as sent by the general path
        message = _message(content.parts, k)
        if "groundingMetadata" in own:
            calls = [p.function_call is not UNSET for p in content.parts]
            message = read_grounding(message, calls, own) or message
    finish = c.finish_reason
    raw: str | int | None = None
    reason = None
    if type(finish) is str:
        # finish_reason(finish, ...) for a name, inlined: no call on the usual path.
        raw = finish
        reason = _FINISH_NAMES.get(finish, _OTHER)
        if reason is _STOP and message is not None and message.tool_calls:
            reason = _TOOL_CALLS
    elif type(finish) is int:
        raw = finish
        reason = finish_reason(finish, message is not None and bool(message.tool_calls))
    index = c.index
    return Choice(
        message,
        reason,
        raw,
        None if index is UNSET else index,
        extras={NAME: own} if own else None,
    )


def _message(parts: list[_Part], k: int) -> AssistantMessage:
    # ``k`` is the candidate's place in the list and ``j`` the part's: they
    # derive the ids of calls that have none, as on the general path.
    content: list[Any] = []
    calls: list[ToolCall] = []
    late = False  # content after a call: the order is hinted
    for j, p in enumerate(parts):
        fc = p.function_call
        thought = p.thought
        signature = p.thought_signature
        if fc is UNSET:
            text = p.text
            if text is UNSET:
                raise _Other  # an opaque part
            if calls:
                late = True
            if thought is True:
                if signature is UNSET:
                    content.append(ReasoningPart(text))
                else:
                    content.append(ReasoningPart(text, signature=signature, provider=NAME))
            elif thought is UNSET and signature is UNSET:
                content.append(TextPart(text))
            else:
                own: dict[str, Any] = {}
                if thought is not UNSET:
                    own["thought"] = thought
                if signature is not UNSET:
                    own["thoughtSignature"] = signature
                content.append(TextPart(text, extras={NAME: own}))
            continue
        name = fc.name
        if p.text is not UNSET or not name:
            raise _Other  # an opaque part, an invalid call
        own = {}
        if thought is not UNSET:
            own["thought"] = thought
        if signature is not UNSET:
            own["thoughtSignature"] = signature
        args = fc.args
        if args:
            data = _encode(args)
            arguments = Raw(data)
        else:
            data = b"{}"
            arguments = _NO_ARGS
            if args is UNSET:
                own["~args"] = "absent"
        id_ = fc.id
        if id_ is UNSET or not id_:
            own["~id"] = "derived" if id_ is UNSET else id_
            # derive_id("call_", k, j, name, data), inlined: the same bytes hashed
            # (its one-format case; the tests compare the ids with the general path's).
            key = b"%d\0%d\0%b\0%b\0" % (k, j, name.encode("utf-8", "replace"), data)
            id_ = "call_" + _blake2b(key, digest_size=8).hexdigest()
        calls.append(ToolCall(id_, name, arguments, extras={NAME: own} if own else None))
    if calls:
        mark_unsigned(calls)
    body: Any
    if not content:
        body = None if calls else ()
    elif len(content) == 1 and type(content[0]) is TextPart and content[0].extras is None:
        body = content[0].text
    else:
        body = tuple(content)
    if late:
        order = "".join(["c" if p.function_call is UNSET else "t" for p in parts])
        return AssistantMessage(body, tuple(calls), extras={NAME: {"~order": order}})
    return AssistantMessage(body, tuple(calls))


def _usage(u: _Usage) -> Usage:
    own: dict[str, Any] = {}
    _carry_usage(u, own)
    prompt = u.prompt_token_count
    candidates = u.candidates_token_count
    total = u.total_token_count
    cached = u.cached_content_token_count
    thoughts = u.thoughts_token_count
    return usage_of(
        None if prompt is UNSET else prompt,
        None if candidates is UNSET else candidates,
        None if total is UNSET else total,
        None if cached is UNSET else cached,
        None if thoughts is UNSET else thoughts,
        u.tool_use_prompt_token_count,
        own,
    )


def usage_of(
    prompt: int | None,
    candidates: int | None,
    total: int | None,
    cached: int | None,
    thoughts: int | None,
    tool_use: Any,
    keep: dict[str, Any] | None,
) -> Usage:
    """The normalized usage of Gemini's counts; ``keep`` is the rest of ``usageMetadata``.

    The one reading of every path (decoder, fast path, stream): the prompt
    counts tool-use prompts too (``toolUsePromptTokenCount``, kept in
    ``keep`` as sent), the completion counts thoughts too, so that prompt
    plus completion is Gemini's total. Counts absent from the wire are noted
    in ``"~omit"`` and left out again on the way back.
    """
    if prompt is None or candidates is None:
        keep = dict(keep) if keep else {}
        keep["~omit"] = [
            name
            for name, count in (("promptTokenCount", prompt), ("candidatesTokenCount", candidates))
            if count is None
        ]
    prompt, candidates = prompt or 0, candidates or 0
    if prompt < 0 or candidates < 0 or (thoughts or 0) < 0:
        # A negative count fails Usage's own check, by the name of the count.
        return Usage(prompt, candidates, total, cached, thoughts)
    if type(tool_use) is int and tool_use > 0:
        prompt += tool_use
    return Usage(
        prompt,
        candidates + (thoughts or 0),
        total,
        cached,
        thoughts,
        extras={NAME: keep} if keep else None,
    )
