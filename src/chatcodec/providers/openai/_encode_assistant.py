"""Canonical assistant message -> OpenAI wire, for requests and responses alike.

Text, or the content list when the message holds parts; reasoning as the
dialect being written takes it (see :mod:`._dialect`), else as the key
(``reasoning_content``, ``reasoning``, OpenRouter's ``reasoning_details``)
that the decoder noted; refusal; tool calls, valid and invalid in their
original order, or the legacy ``function_call``.
"""

from __future__ import annotations

from typing import Any

from msgspec import Raw

from ..._content import (
    OpaquePart,
    ReasoningPart,
    RefusalPart,
    TextPart,
)
from ..._loss import block_lost, no_reasoning_field, signature_lost
from ..._messages import AssistantMessage
from ..._tools import InvalidToolCall, ToolCall
from .._cite import lose_citations
from .._wire import fill, lose_if_read_valid
from ._cite import write_annotation
from ._common import NAME
from ._dialect import BY_FORMAT, FORMATS, DialectEncoding

__all__ = ["assistant_wire"]


def assistant_wire(
    m: AssistantMessage,
    own: dict[str, Any],
    path: str,
    enc: DialectEncoding,
    *,
    response: bool = False,
) -> dict[str, Any]:
    """The wire object of ``m`` (``own``: its OpenAI extras), before ``fill``."""
    out: dict[str, Any] = {}
    if "~role" not in own and "role" not in own:
        out["role"] = "assistant"
    content = m.content
    if isinstance(content, str):
        out["content"] = content
    elif content is not None:
        _assistant_parts(content, own, out, path, enc, response)
    # A Gemini call's thought signature goes to OpenRouter as an entry of
    # reasoning_details keyed by the call's id (see _decode_assistant).
    signed: list[tuple[str, str, Any, Any]] | None = None
    if "reasoning_details" not in own and (
        enc.dialect.reasoning == "reasoning_details"
        or (enc.dialect.reasoning is None and own.get("~reasoning") == "reasoning_details")
    ):
        signed = []
    calls = _calls(m, own, path, enc, signed)
    if signed:
        _signed_calls(signed, out)
    if calls and not response and enc.dialect.call_signatures and "extra_content" not in calls[0]:
        # Gemini 3 refuses the first call of a turn without the signature it
        # made it with: a call it did not make gets Google's placeholder (in a
        # request: a response is Gemini's own, sent as it is).
        calls[0]["extra_content"] = {"google": {"thought_signature": SKIP_SIGNATURE}}
        enc.lose(f"{path}.tool_calls[0]", PLACEHOLDER)
    if calls:
        if own.get("~function_call") and len(calls) == 1:
            fc = calls[0]["function"]
            out["function_call"] = fc
        else:
            out["tool_calls"] = calls
    return out


def _assistant_parts(
    content: tuple[Any, ...],
    own: dict[str, Any],
    out: dict[str, Any],
    path: str,
    enc: DialectEncoding,
    response: bool,
) -> None:
    mode = own.get("~content")
    listed = mode == "parts"
    # Mistral takes reasoning as a thinking chunk in the content list.
    thinking = enc.dialect.reasoning == "thinking"
    if thinking and not listed:
        listed = any(type(part) is ReasoningPart for part in content)
    texts: list[str] = []
    notes: list[Any] = []
    size = 0  # characters of text so far: where the next part's annotations count from
    items: list[Any] = []
    reasoning: list[tuple[str, ReasoningPart, dict[str, Any]]] = []
    refusals: list[str] = []
    for j, part in enumerate(content):
        at = f"{path}.content[{j}]"
        if isinstance(part, OpaquePart):
            if part.provider == NAME:
                items.append(part.data)
                listed = listed or not response
            else:
                enc.lose(at, block_lost(part.provider, NAME))
            continue
        part_own = enc.own(part.extras, at)
        if isinstance(part, TextPart):
            texts.append(part.text)
            items.append(fill({"type": "text", "text": part.text}, part_own))
            if part.citations:
                if listed:
                    lose_citations(enc, part, at, "openai has no annotations on content parts")
                else:
                    for k, citation in enumerate(part.citations):
                        where = f"{at}.citations[{k}]"
                        note = write_annotation(citation, size, len(part.text), enc, where)
                        if note is not None:
                            notes.append(note)
            size += len(part.text)
        elif isinstance(part, RefusalPart):
            if part_own.get("~in") == "content" and listed:
                items.append(fill({"type": "refusal", "refusal": part.text}, part_own))
            else:
                refusals.append(part.text)
        elif isinstance(part, ReasoningPart):
            if listed and (thinking or part_own.get("~in") == "content"):
                _unsent(at, part, enc)
                if part.text or part_own:  # redacted reasoning alone has no text to send
                    chunks = _chunks(part.text, part_own.get("~chunks"))
                    items.append(fill({"type": "thinking", "thinking": chunks}, part_own))
            else:
                reasoning.append((at, part, part_own))
        else:
            enc.lose(at, "openai cannot carry this part in an assistant message")
    if listed:
        out["content"] = items
    elif texts:
        out["content"] = "".join(texts)
    if notes and not listed:
        out["annotations"] = notes
    if refusals:
        out["refusal"] = "".join(refusals)
    if reasoning:
        _reasoning(reasoning, own, out, enc)


def _chunks(text: str, lengths: Any) -> list[dict[str, str]]:
    """Mistral's thinking chunks, split where they were when they add up."""
    if not lengths or sum(lengths) != len(text):
        return [{"type": "text", "text": text}]
    out = []
    at = 0
    for n in lengths:
        out.append({"type": "text", "text": text[at : at + n]})
        at += n
    return out


def _reasoning(
    parts: list[tuple[str, ReasoningPart, dict[str, Any]]],
    own: dict[str, Any],
    out: dict[str, Any],
    enc: DialectEncoding,
) -> None:
    # The dialect's own key wins over the one the decoder noted: a body read
    # from vLLM (``reasoning``) goes to DeepSeek as ``reasoning_content``.
    wanted = enc.dialect.reasoning
    key = wanted or own.get("~reasoning")
    signed = any(
        p.provider == NAME and (p.signature is not None or p.redacted is not None)
        for _, p, _ in parts
    )
    # OpenAI's own signed entries need reasoning_details, unless the dialect
    # names another place (where they are reported).
    if key == "reasoning_details" or (signed and wanted is None):
        details: list[Any] = []
        for at, part, part_own in parts:
            _detail(at, part, part_own, enc, details)
        out["reasoning_details"] = details
        dup = own.get("~dup")
        if dup:
            out[dup] = "".join(p.text for _, p, _ in parts)
        return
    if key is None or key == "thinking":
        for at, _, _ in parts:
            enc.lose(at, no_reasoning_field(enc.dialect.name))
        return
    for at, part, _ in parts:
        _unsent(at, part, enc)
    out[key] = "".join(p.text for _, p, _ in parts)
    dup = own.get("~dup")
    if dup:
        out[dup] = out[key]


def _unsent(at: str, part: ReasoningPart, enc: DialectEncoding) -> None:
    """Report the signature and redacted data of a part written as text alone."""
    if part.signature is not None:
        enc.lose(f"{at}.signature", signature_lost(part.provider or NAME))
    if part.redacted is not None:
        enc.lose(f"{at}.redacted", f"{part.provider or NAME} redacted reasoning")


def _foreign_signature(at: str, part: ReasoningPart, enc: DialectEncoding) -> None:
    if part.signature is not None and part.provider != NAME:
        enc.lose(f"{at}.signature", signature_lost(part.provider))
    if part.redacted is not None and part.provider != NAME:
        enc.lose(f"{at}.redacted", f"{part.provider} redacted reasoning")


def _detail(
    at: str, part: ReasoningPart, part_own: dict[str, Any], enc: DialectEncoding, out: list[Any]
) -> None:
    """Append the ``reasoning_details`` entries of ``part`` to ``out``.

    A part read from OpenRouter goes back as it came. Another family's part
    gets the ``format`` of the family that made its signature (OpenRouter
    replays it to that family's models only); a Responses reasoning item is
    two entries, its summary and its encrypted content, as OpenRouter sends it.
    """
    kind = part_own.get("~detail")
    fmt = part_own.get("~format", part_own.get("format"))
    # The family whose signature the entry may carry: OpenAI's own (an entry
    # read without a format chatcodec knows), or the one its format names.
    family = BY_FORMAT.get(fmt, NAME) if type(fmt) is str else NAME
    if kind is None:
        fmt = FORMATS.get(part.provider or "")
        if fmt is not None:
            family = part.provider or NAME
            if family == "openai-responses":
                _responses_details(part, part_own, fmt, out)
                return
        kind = "reasoning.encrypted" if part.redacted is not None and not part.text else None
        kind = kind or "reasoning.text"
    item: dict[str, Any] = {"type": kind}
    ours = part.provider == family
    if kind == "reasoning.encrypted":
        data = part.redacted if part.redacted is not None else part.signature
        if data is not None and ours:
            item["data"] = data
        else:
            _foreign_signature(at, part, enc)
    elif kind == "reasoning.summary":
        item["summary"] = part.text
    else:
        item["text"] = part.text
    if part.signature is not None and kind != "reasoning.encrypted":
        if ours:
            item["signature"] = part.signature
        else:
            _foreign_signature(at, part, enc)
    if part.redacted is not None and kind != "reasoning.encrypted" and not ours:
        _foreign_signature(at, part, enc)
    if ("~detail" not in part_own and fmt is not None) or "~format" in part_own:
        item["format"] = fmt  # another family's, or as it came
    if "~index" in part_own:
        item["index"] = part_own["~index"]
    out.append(fill(item, part_own))


def _responses_details(
    part: ReasoningPart, part_own: dict[str, Any], fmt: str, out: list[Any]
) -> None:
    """A Responses reasoning item as OpenRouter writes it: summary, then encrypted data.

    An item read from OpenRouter goes back as its entries came (``~item``:
    whether a summary entry came, and each entry's index).
    """
    said = part_own.get("~item")
    if type(said) is not list or len(said) != 3:
        said = [bool(part.text), None, None]
    if said[0] or part.text:
        summary = {"type": "reasoning.summary", "summary": part.text, "format": fmt}
        if said[1] is not None:
            summary["index"] = said[1]
        out.append(summary)
    if part.signature is not None:
        item: dict[str, Any] = {"type": "reasoning.encrypted", "data": part.signature}
        theirs = (part.extras or {}).get("openai-responses")
        ident = theirs.get("id") if type(theirs) is dict else None
        if type(ident) is str:
            item["id"] = ident
        item["format"] = fmt
        if said[2] is not None:
            item["index"] = said[2]
        out.append(item)


def _signed_calls(signed: list[tuple[str, str, Any, Any]], out: dict[str, Any]) -> None:
    """Add a ``reasoning_details`` entry for each signed call, at its place when read."""
    details = out.setdefault("reasoning_details", [])
    placed = sorted(signed, key=lambda s: s[2] if type(s[2]) is int else len(details) + 1)
    for ident, signature, at, index in placed:
        entry: dict[str, Any] = {
            "type": "reasoning.encrypted",
            "data": signature,
            "id": ident,
            "format": FORMATS["gemini"],
        }
        if index is not None:
            entry["index"] = index
        details.insert(at if type(at) is int and 0 <= at <= len(details) else len(details), entry)


def _calls(
    m: AssistantMessage,
    own: dict[str, Any],
    path: str,
    enc: DialectEncoding,
    signed: list[tuple[str, str, Any, Any]] | None = None,
) -> list[Any]:
    valid = [_call(c, f"{path}.tool_calls[{j}]", enc, signed) for j, c in enumerate(m.tool_calls)]
    invalid = [
        _call(c, f"{path}.invalid_tool_calls[{j}]", enc, signed)
        for j, c in enumerate(m.invalid_tool_calls)
    ]
    if not invalid:
        return valid
    at = own.get("~invalid_at")
    total = len(valid) + len(invalid)
    if (
        not at
        or len(at) != len(invalid)
        or not all(type(i) is int and 0 <= i < total for i in at)
        or len(set(at)) != len(at)
    ):
        return valid + invalid
    merged: list[Any] = [None] * total
    for i, call in zip(at, invalid, strict=True):
        merged[i] = call
    rest = iter(valid)
    return [call if call is not None else next(rest) for call in merged]


def _call(
    call: ToolCall | InvalidToolCall,
    path: str,
    enc: DialectEncoding,
    signed: list[tuple[str, str, Any, Any]] | None = None,
) -> dict[str, Any]:
    if type(call) is InvalidToolCall:
        lose_if_read_valid(call, path, enc)
    extras = call.extras
    signature = key = None
    if extras is not None and "gemini" in extras:
        extras, signature, key = _gemini_signature(extras)
    own = enc.own(extras, path)
    out: dict[str, Any] = {}
    if own.get("~id") != "derived" and call.id is not None:
        out["id"] = call.id
    if "~type" not in own and "type" not in own:
        out["type"] = "function"
    fn: dict[str, Any] = {}
    if call.name is not None:
        fn["name"] = call.name
    how = own.get("~arguments")
    if isinstance(call, ToolCall):
        args = bytes(call.arguments)
        if how == "object":
            fn["arguments"] = Raw(args)
        elif how != "absent" or args.strip() != b"{}":
            fn["arguments"] = args.decode()
    else:
        fn["arguments"] = call.arguments
    inner = own.get("~function")
    out["function"] = fill(fn, inner) if inner else fn
    if signature is not None and "extra_content" not in own:
        if enc.dialect.call_signatures or "~extra_content" in own:
            out["extra_content"] = {"google": {"thought_signature": signature}}
        elif signed is not None and "id" in out:
            signed.append((out["id"], signature, own.get("~detail_at"), own.get("~index")))
        else:
            enc.lose(f"{path}.extras.gemini.{key}", _GEMINI_ONLY)
    return fill(out, own)


_GEMINI_ONLY = "a gemini thought signature: only gemini's openai-compatible endpoint takes one"
PLACEHOLDER = (
    "a function call gemini did not make: sent with the placeholder thought_signature"
    " gemini 3 takes for one"
)
SKIP_SIGNATURE = "skip_thought_signature_validator"
"""The thought signature Google documents for function calls Gemini did not make."""


def _gemini_signature(
    extras: dict[str, Any],
) -> tuple[dict[str, Any] | None, str | None, str | None]:
    """``extras`` without Gemini's thought signature of a call, that signature and its key."""
    theirs = extras["gemini"]
    if type(theirs) is not dict:
        return extras, None, None
    for key in ("thoughtSignature", "thought_signature"):
        signature = theirs.get(key)
        if type(signature) is str:
            rest = {name: value for name, value in theirs.items() if name != key}
            others = {name: value for name, value in extras.items() if name != "gemini"}
            if rest:
                others["gemini"] = rest
            return others or None, signature, key
    return extras, None, None
