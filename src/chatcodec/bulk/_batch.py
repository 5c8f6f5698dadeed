"""Provider batch files: each provider's envelope around a request or a result.

- openai: ``{"custom_id", "method", "url", "body"}``; results
  ``{"id", "custom_id", "response": {"status_code", "body"}, "error"}``. The
  url names the body's family: ``/v1/chat/completions`` (``openai``) or
  ``/v1/responses`` (``openai-responses``, whose batch lines are OpenAI's);
  a line for any other endpoint (embeddings...) is no chat request and fails.
- anthropic: ``{"custom_id", "params"}``; results ``{"custom_id", "result":
  {"type": "succeeded|errored|canceled|expired", ...}}``
- gemini: ``{"key", "request"}``; results ``{"key", "response"}`` or ``"error"``
- bedrock: ``{"recordId", "modelInput"}``; results ``{"recordId", "modelOutput"}``
  or ``"error"``
- chatcodec: ``{"id", "request"}``; results ``{"id", "status", "response"}`` or
  ``"error"``

:func:`read` turns a line into an :class:`Entry` (the id, the body's bytes,
and for a result its status and error); :func:`write` puts an entry, its
body converted, into the target's envelope. Ids pass through unchanged; a
line without one fails (a provider matches results to requests by it).
"""

from __future__ import annotations

import re
from typing import Any, Literal, cast

import msgspec

from .._codec import decode_json
from .._errors import ValidationError
from .._frozen import FrozenMap
from .._loss import Loss
from .._problems import Problem

__all__ = ["HAS_BATCH", "Entry", "id_problems", "read", "write"]

Status = Literal["succeeded", "errored", "canceled", "expired"]
OPENAI_URL = "/v1/chat/completions"
RESPONSES_URL = "/v1/responses"
URLS = FrozenMap({OPENAI_URL: "openai", RESPONSES_URL: "openai-responses"})
"""The chat endpoints an OpenAI batch line may name, and the family of their bodies."""
NOT_CHAT = "must be /v1/chat/completions or /v1/responses: other endpoints are not chat requests"
NO_ID = "must be set: the provider matches each result to its request by this id"


class Entry(msgspec.Struct):
    """One batch line, whatever the envelope: its id, body and outcome."""

    id: str | None
    part: Literal["request", "result"]
    body: bytes | None = None
    status: Status = "succeeded"
    error: dict[str, Any] | None = None
    family: str | None = None
    """The body's family where the envelope names another than its own."""


def _id(value: Any, path: str) -> str:
    if value is None or value == "":
        raise ValidationError(NO_ID, path)
    if type(value) is not str and type(value) is not int:
        raise ValidationError("must be a string", path)
    return str(value)


def _raw(value: msgspec.Raw | None) -> bytes | None:
    return None if value is None or bytes(value) == b"null" else bytes(value)


def _small(value: msgspec.Raw | None) -> Any:
    return None if value is None else decode_json(value, Any)


def read(family: str, line: bytes) -> Entry:
    """The entry of one batch line of ``family``'s envelope."""
    keys = decode_json(line, dict[str, msgspec.Raw])
    reader = _READERS.get("openai" if family == "openai-responses" else family)
    if reader is None:
        raise ValidationError(f"{family} has no batch file format", "$")
    return reader(keys)


def _openai(keys: dict[str, msgspec.Raw]) -> Entry:
    ident = _id(_small(keys.get("custom_id")), "$.custom_id")
    if "body" in keys:
        url = _small(keys.get("url"))
        if url is None:
            url = OPENAI_URL  # the file names one url for every line only in the job
        family = URLS.get(url) if type(url) is str else None
        if family is None:
            raise ValidationError(NOT_CHAT, "$.url")
        return Entry(ident, "request", _raw(keys["body"]), family=family)
    if "response" not in keys and "error" not in keys:
        raise ValidationError("an OpenAI batch line has body (input) or response (output)", "$")
    error = _small(keys.get("error"))
    response = _small(keys.get("response"))
    if isinstance(response, dict):
        status = response.get("status_code", 200)
        body = response.get("body")
        if status == 200 and isinstance(body, dict) and "error" not in body:
            family = "openai-responses" if body.get("object") == "response" else "openai"
            return Entry(ident, "result", msgspec.json.encode(body), family=family)
        detail = body.get("error") if isinstance(body, dict) else None
        error = {"status": status, **_error_fields(detail if isinstance(detail, dict) else {})}
    elif isinstance(error, dict):
        error = _error_fields(error)
    return Entry(ident, "result", status="errored", error=error or {})


def _error_fields(error: Any) -> dict[str, Any]:
    """The type, code and message of an error object (a bare string: its code)."""
    if type(error) is str:
        return {"code": error}
    if type(error) is not dict:
        return {}
    return {
        k: error[k]
        for k in ("type", "code", "message")
        if type(error.get(k)) in (str, int) and type(error.get(k)) is not bool
    }


def _anthropic(keys: dict[str, msgspec.Raw]) -> Entry:
    ident = _id(_small(keys.get("custom_id")), "$.custom_id")
    if "params" in keys:
        return Entry(ident, "request", _raw(keys["params"]))
    result = decode_json(keys.get("result", b"null"), dict[str, msgspec.Raw] | None)
    if result is None:
        raise ValidationError("an Anthropic batch line has params or result", "$")
    kind = _small(result.get("type"))
    if kind == "succeeded":
        return Entry(ident, "result", _raw(result.get("message")))
    if kind in ("canceled", "expired"):
        return Entry(ident, "result", status=kind)
    if kind != "errored":
        raise ValidationError("must be succeeded, errored, canceled or expired", "$.result.type")
    outer = _small(result.get("error"))
    inner = outer.get("error", outer) if type(outer) is dict else outer
    return Entry(ident, "result", status="errored", error=_error_fields(inner))


def _gemini(keys: dict[str, msgspec.Raw]) -> Entry:
    ident = _id(_small(keys.get("key")), "$.key")
    if "request" in keys:
        return Entry(ident, "request", _raw(keys["request"]))
    if "response" in keys:
        return Entry(ident, "result", _raw(keys["response"]))
    error = _small(keys.get("error", keys.get("status")))
    if not isinstance(error, dict):
        raise ValidationError("a Gemini batch line has request, response or error", "$")
    fields = {"type": error.get("status"), "code": error.get("code")}
    fields["message"] = error.get("message")
    return Entry(ident, "result", status="errored", error=_error_fields(fields))


def _bedrock(keys: dict[str, msgspec.Raw]) -> Entry:
    ident = _id(_small(keys.get("recordId")), "$.recordId")
    if "modelOutput" in keys:
        return Entry(ident, "result", _raw(keys["modelOutput"]))
    if "error" in keys:
        error = _small(keys["error"])
        if type(error) is dict:
            error = {"code": error.get("errorCode"), "message": error.get("errorMessage")}
        return Entry(ident, "result", status="errored", error=_error_fields(error))
    if "modelInput" in keys:
        return Entry(ident, "request", _raw(keys["modelInput"]))
    raise ValidationError("a Bedrock batch line has modelInput, modelOutput or error", "$")


def _canonical(keys: dict[str, msgspec.Raw]) -> Entry:
    ident = _id(_small(keys.get("id")), "$.id")
    if "request" in keys:
        return Entry(ident, "request", _raw(keys["request"]))
    status: Any = _small(keys.get("status")) or "succeeded"
    if type(status) is not str or status not in ("succeeded", "errored", "canceled", "expired"):
        raise ValidationError("must be succeeded, errored, canceled or expired", "$.status")
    if status == "succeeded":
        if "response" not in keys:
            raise ValidationError("a succeeded result has a response", "$")
        return Entry(ident, "result", _raw(keys["response"]))
    error = _small(keys.get("error"))
    kept = error if isinstance(error, dict) else None
    return Entry(ident, "result", status=cast(Status, status), error=kept)


_READERS = FrozenMap(
    {
        "openai": _openai,
        "anthropic": _anthropic,
        "gemini": _gemini,
        "bedrock": _bedrock,
        "chatcodec": _canonical,
    }
)


def _not_held(family: str, status: str, losses: list[Loss]) -> None:
    reason = f"{family} batch results have no {status} kind: written as an error"
    losses.append(Loss("$.status", reason))


_ANTHROPIC_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")
ANTHROPIC_ID_RULE = "must match ^[a-zA-Z0-9_-]{1,64}$: Anthropic refuses other custom ids"
HAS_BATCH = frozenset((*_READERS, "openai-responses"))
ID_PATHS = FrozenMap(
    {
        "openai": "$.custom_id",
        "openai-responses": "$.custom_id",
        "anthropic": "$.custom_id",
        "gemini": "$.key",
        "bedrock": "$.recordId",
        "chatcodec": "$.id",
    }
)
"""The families with a batch file format (Responses batches are OpenAI's, by url)."""


def id_problems(family: str, entry: Entry) -> list[Problem]:
    """What ``family``'s batch API refuses in an entry's id."""
    if family == "anthropic" and _ANTHROPIC_ID.fullmatch(entry.id or "") is None:
        return [Problem("$.custom_id", ANTHROPIC_ID_RULE)]
    return []


def write(
    family: str,
    entry: Entry,
    body: bytes | None,
    losses: list[Loss],
    found: list[Problem] | None = None,
) -> bytes:
    """One batch line in ``family``'s envelope, ``body`` being the converted body.

    An id the target's batch API refuses goes to ``found``, as its preflight would.
    """
    if found is not None:
        found.extend(id_problems(family, entry))
    raw = msgspec.Raw(body) if body is not None else None
    error = dict(entry.error or {})
    if entry.status in ("canceled", "expired") and family != "anthropic" and family != "chatcodec":
        _not_held(family, entry.status, losses)
        error.setdefault("code", entry.status)
    out: dict[str, Any]
    if family == "openai" or family == "openai-responses":
        if entry.part == "request":
            url = RESPONSES_URL if family == "openai-responses" else OPENAI_URL
            out = {"custom_id": entry.id, "method": "POST", "url": url, "body": raw}
        elif raw is not None:
            response = {"status_code": 200, "body": raw}
            out = {"custom_id": entry.id, "response": response, "error": None}
        else:
            out = {"custom_id": entry.id, "response": None, "error": _error_fields(error)}
    elif family == "anthropic":
        if entry.part == "request":
            out = {"custom_id": entry.id, "params": raw}
        elif raw is not None:
            out = {"custom_id": entry.id, "result": {"type": "succeeded", "message": raw}}
        elif entry.status in ("canceled", "expired"):
            out = {"custom_id": entry.id, "result": {"type": entry.status}}
        else:
            inner = {"type": error.get("type") or "api_error", "message": error.get("message", "")}
            out = {
                "custom_id": entry.id,
                "result": {"type": "errored", "error": {"type": "error", "error": inner}},
            }
    elif family == "gemini":
        if entry.part == "request":
            out = {"key": entry.id, "request": raw}
        elif raw is not None:
            out = {"key": entry.id, "response": raw}
        else:
            fields = {
                "code": error.get("code"),
                "message": error.get("message"),
                "status": error.get("type"),
            }
            out = {"key": entry.id, "error": {k: v for k, v in fields.items() if v is not None}}
    elif family == "bedrock":
        if entry.part == "request":
            out = {"recordId": entry.id, "modelInput": raw}
        elif raw is not None:
            out = {"recordId": entry.id, "modelOutput": raw}
        else:
            fields = {"errorCode": error.get("code"), "errorMessage": error.get("message")}
            kept = {k: v for k, v in fields.items() if v is not None}
            out = {"recordId": entry.id, "error": kept}
    elif family == "chatcodec":
        if entry.part == "request":
            out = {"id": entry.id, "request": raw}
        elif raw is not None:
            out = {"id": entry.id, "status": "succeeded", "response": raw}
        else:
            out = {"id": entry.id, "status": entry.status, "error": error or None}
    else:
        raise ValidationError(f"{family} has no batch file format", "$")
    return msgspec.json.encode({k: v for k, v in out.items() if v is not None or k == "error"})
