"""What every provider codec shares: the JSON body, extras, hints and losses.

The data path of every codec is ``bytes -> builtins -> canonical`` on the
way in and ``canonical -> builtins -> bytes`` on the way out; msgspec does the
bytes in C.

Nothing a provider sends is dropped. A key with no canonical field is kept in
the record's ``extras`` under the provider's name: ``{"openai": {"logprobs":
null}}``. The same provider's encoder writes those keys back where the
canonical fields left a gap (:func:`fill`), so ``null`` and absent, and every
field chatcodec does not model, survive a round trip. Keys starting with
``~`` are hints about how the wire spelled something (``"~id": "derived"``:
the id was made up and must not be sent), never wire keys themselves.

Another provider's encoder cannot carry those keys: :class:`Encoding`
reports each one as a :class:`~chatcodec.Loss`.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

import msgspec

from .._errors import DECODE_FAILURES, DecodeError, ValidationError, from_msgspec
from .._exchange import Request, ToolChoice
from .._frozen import FrozenMap
from .._loss import Loss, a, choice_cannot_run
from .._paths import key_step
from .._tools import InvalidToolCall, ToolCall, ToolDefinition, parse_tool_call

__all__ = [
    "HINT",
    "PROVIDERS",
    "Encoding",
    "derive_id",
    "expect_dict",
    "expect_list",
    "expect_str",
    "extras_for",
    "fill",
    "json_body",
    "leftover",
    "rest_of",
]

PROVIDERS = ("openai", "ollama", "anthropic", "gemini", "openai-responses", "bedrock", "cohere")
"""The wire families; their names are the keys of provider extras."""

HINT = "~"
"""Prefix of a chatcodec hint key inside a provider's extras (a wire key with it: ``~~``)."""

_decoder = msgspec.json.Decoder()
_encoder = msgspec.json.Encoder()


MAX_BODY = 64 * 1024 * 1024
"""The largest body a provider decoder reads by default, in bytes (64 MiB)."""


def check_size(body: bytes | str, max_bytes: int) -> None:
    """Refuse a body over ``max_bytes`` (characters, for text) before it is parsed."""
    if len(body) > max_bytes:
        raise DecodeError(f"the body is over the limit max_bytes={max_bytes} - at `$`")


def json_body(body: bytes | str) -> dict[str, Any]:
    """Parse a request or response body, which must be a JSON object."""
    try:
        value = _decoder.decode(body)
    except DECODE_FAILURES as exc:
        error = from_msgspec(exc)
        raise DecodeError(str(error)) from None
    return expect_dict(value, "$")


def encode_body(value: Any) -> bytes:
    """Write builtins (with :class:`msgspec.Raw` inside) as compact JSON."""
    return _encoder.encode(value)


def expect_dict(value: Any, path: str) -> dict[str, Any]:
    """Return ``value`` if it is a JSON object, else raise naming ``path``."""
    if type(value) is not dict:
        raise ValidationError("must be an object", path)
    return value


def expect_list(value: Any, path: str) -> list[Any]:
    """Return ``value`` if it is a JSON array, else raise naming ``path``."""
    if type(value) is not list:
        raise ValidationError("must be an array", path)
    return value


def expect_str(value: Any, path: str) -> str:
    """Return ``value`` if it is a JSON string, else raise naming ``path``."""
    if type(value) is not str:
        raise ValidationError("must be a string", path)
    return value


LITERAL = HINT + HINT
"""How extras keep a wire key that begins with ``~``: ``~x`` as ``~~x``, not a hint."""


def as_kept(rest: dict[str, Any]) -> dict[str, Any]:
    """``rest`` (wire keys) as extras keep it: a key that begins with ``~`` escaped.

    Hints begin with ``~``: a wire key that does too is kept as ``~~key`` so
    that :func:`fill` writes it back as sent and another family reports it.
    """
    for key in rest:
        if key.startswith(HINT):
            break
    else:
        return rest  # the usual case: no such key
    return {(HINT + key if key.startswith(HINT) else key): value for key, value in rest.items()}


def leftover(obj: Mapping[str, Any], known: frozenset[str]) -> dict[str, Any] | None:
    """The keys of ``obj`` outside ``known`` (``None`` when there are none), as kept."""
    rest = {key: value for key, value in obj.items() if key not in known}
    return as_kept(rest) if rest else None


def rest_of(obj: Mapping[str, Any], known: frozenset[str]) -> dict[str, Any]:
    """The keys of ``obj`` outside ``known``, as kept; ``{}`` when there are none.

    The usual object has no other key: one set operation, in C, says so.
    """
    if obj.keys() <= known:
        return {}
    return leftover(obj, known) or {}


def extras_for(
    provider: str, rest: Mapping[str, Any] | None, base: Mapping[str, Any] | None = None
) -> dict[str, Any] | None:
    """Record ``extras`` holding ``rest`` under the provider's name.

    ``base`` is the extras the record already has (kept); ``None`` when
    there is nothing to keep.
    """
    if not rest:
        return dict(base) if base else None
    out = dict(base) if base else {}
    own = out.get(provider)
    out[provider] = {**own, **rest} if isinstance(own, dict) else dict(rest)
    return out


def fill(out: dict[str, Any], own: Mapping[str, Any]) -> dict[str, Any]:
    """Add the wire keys of ``own`` that ``out`` does not set; return ``out``.

    Hints are left out; a wire key kept escaped (see :func:`as_kept`) is
    written as sent.
    """
    for key, value in own.items():
        if key not in out:
            if not key.startswith(HINT):
                out[key] = value
            elif key.startswith(LITERAL) and key[1:] not in out:
                out[key[1:]] = value
    return out


def derive_id(prefix: str, *parts: object) -> str:
    """A deterministic id from ``parts``: the same on every run, in every process.

    Used for tool calls that arrive without an id (Gemini, Ollama): pass the
    call's position in the conversation and its content, so that ids are
    unique within a conversation.

    Examples
    --------
    >>> derive_id("call_", 3, 0, "get_weather", b'{"city":"Paris"}')
    'call_...'
    """
    if len(parts) == 4:
        # The usual call (position, index, name, arguments), in one format:
        # the same bytes as the loop below, a third faster.
        position, index, name, data = parts
        if type(index) is int and type(name) is str and type(data) is bytes:
            text = str(position).encode("utf-8", "replace")
            key = b"%b\0%d\0%b\0%b\0" % (text, index, name.encode("utf-8", "replace"), data)
            return prefix + hashlib.blake2b(key, digest_size=8).hexdigest()
    digest = hashlib.blake2b(digest_size=8)
    for part in parts:
        digest.update(part if isinstance(part, bytes) else str(part).encode("utf-8", "replace"))
        digest.update(b"\0")
    return prefix + digest.hexdigest()


_ANY = object()
_frozen = FrozenMap

# Wire values that say nothing a target could carry: each provider's defaults
# and position markers. Another provider's encoder does not report them as
# lost (``null``, ``[]`` and ``{}`` never are: they mean "nothing").
_NEUTRAL: Mapping[str, Mapping[str, Any]] = FrozenMap(
    {
        # ``object`` names the body's own type ("chat.completion"): a tag, no data.
        "openai": _frozen(
            {"n": 1, "prefix": False, "index": _ANY, "type": "function", "object": _ANY}
        ),
        "anthropic": _frozen(
            {"is_error": False, "caller": _frozen({"type": "direct"}), "type": "custom"}
        ),
        "ollama": _frozen(
            {"type": "function", "index": _ANY, "function": _frozen({"index": _ANY})}
        ),
        "gemini": _frozen({}),
        # Item ids and statuses place an item on OpenAI's side; they say nothing
        # about the conversation.
        "openai-responses": _frozen({"type": _ANY, "id": _ANY, "status": _ANY, "object": _ANY}),
        "bedrock": _frozen({}),
        "cohere": _frozen({"type": "function"}),
    }
)


# Hints that keep the other keys of an inner object (OpenAI's ``function`` of a
# tool or call, ``json_schema`` of a response format, a part's ``image_url``,
# ``input_audio`` or ``file``, the text parts of an instruction) with its
# layout: what they hold beyond the layout is content another family loses.
_HELD = frozenset(
    {
        ("openai", "~function"),
        ("openai", "~json_schema"),
        ("openai", "~inner"),
        ("openai", "~parts"),  # each text part of an instruction: its other keys
    }
)
# Keys that say something even when their value is empty: OpenAI's
# ``"web_search_options": {}`` turns web search on.
_SAID_EMPTY = frozenset({("openai", "web_search_options")})


def neutral(provider: str, key: str, value: Any) -> bool:
    """Whether ``provider``'s wire ``key: value`` carries no information."""
    if value is None:
        return True
    if type(value) in (list, dict) and not value:
        return (provider, key) not in _SAID_EMPTY
    expected = _NEUTRAL.get(provider, _NOTHING).get(key, _MISSING)
    if expected is _ANY:
        return True
    if type(expected) is FrozenMap and type(value) is dict:
        return all(
            key in expected and (expected[key] is _ANY or expected[key] == item)
            for key, item in value.items()
        )
    return expected is not _MISSING and type(expected) is type(value) and expected == value


_MISSING = object()
_NOTHING: Mapping[str, Any] = FrozenMap({})

# Objects of settings whose keys the canonical form maps one by one; what is
# left of one is reported key by key, not as one lump.
_SETTING_GROUPS = frozenset(
    {
        ("gemini", "generationConfig"),
        ("gemini", "generation_config"),
        ("ollama", "options"),
        ("anthropic", "metadata"),
    }
)
# Fields whose loss means more than a field: the conversation is not all there.
_REASONS: Mapping[tuple[str, str], str] = FrozenMap(
    {
        ("openai-responses", "previous_response_id"): (
            "the earlier turns are stored by OpenAI (previous_response_id), not in the body"
        ),
        ("openai-responses", "conversation"): (
            "the earlier turns are stored in an OpenAI conversation, not in the body"
        ),
    }
)


# The breakdowns of a usage, and how a loss names them.
_COUNTS = (
    ("cached_tokens", "cached"),
    ("reasoning_tokens", "reasoning"),
    ("cache_write_tokens", "cache-write"),
)


READ_VALID = "an invalid call's arguments are a JSON object: it reads back as a valid call"


def lose_if_read_valid(call: InvalidToolCall, path: str, enc: Encoding) -> None:
    """Report an invalid call its family will read back as a valid one.

    A call cut off with its stream (or refused by a decoder for its
    arguments) whose arguments happen to be a whole JSON object, with an id
    and a name: written, it reads back valid, and what made it invalid is lost.
    A caller would run a call that never ended.
    """
    if not call.id or not call.name:
        return  # it reads back invalid, for its id or name
    if type(parse_tool_call(call.id, call.name, call.arguments)) is ToolCall:
        enc.lose(path, READ_VALID)


class Encoding:
    """One encode: the target provider and the losses found on the way.

    Parameters
    ----------
    provider : str
        The provider being written.
    losses : list of Loss, optional
        Where losses go; ``None`` when nobody asked (a plain encode).
    """

    __slots__ = ("losses", "provider")

    def __init__(self, provider: str, losses: list[Loss] | None = None) -> None:
        self.provider = provider
        self.losses = losses

    def lose(self, path: str, reason: str) -> None:
        """Record that what is at ``path`` cannot be carried."""
        if self.losses is not None:
            self.losses.append(Loss(path, reason))

    def own(self, extras: Mapping[str, Any] | None, path: str) -> dict[str, Any]:
        """The target provider's keys from a record's ``extras``.

        Every other key (another provider's fields, or fields chatcodec does
        not know) cannot be carried and is reported as lost, by its path
        under ``path``.
        """
        if not extras:
            return {}
        own: dict[str, Any] = {}
        for key, value in extras.items():
            if key == self.provider and isinstance(value, dict):
                own = value
            elif self.losses is not None:
                if key in PROVIDERS and isinstance(value, dict):
                    for name, item in value.items():
                        if (key, name) in _HELD:
                            self._held(key, item, f"{path}.extras.{key}.{name[1:]}")
                            continue
                        if name.startswith(HINT):
                            if not name.startswith(LITERAL):
                                continue
                            name = name[1:]  # a wire key, as sent
                        elif neutral(key, name, item):
                            continue
                        at = f"{path}.extras.{key}{key_step(name)}"
                        if (key, name) in _SETTING_GROUPS and type(item) is dict:
                            # A group of settings: each one the target lacks, by name.
                            for inner in item:
                                self.lose(
                                    at + key_step(inner),
                                    f"{a(key)} setting {self.provider} has no place for",
                                )
                        else:
                            self.lose(
                                at,
                                _REASONS.get((key, name))
                                or f"{a(key)} field {self.provider} has no place for",
                            )
                else:
                    self.lose(
                        f"{path}.extras{key_step(key)}", f"a field {self.provider} has no place for"
                    )
        return own

    def lose_counts(self, usage: Any, path: str, has: frozenset[str] = frozenset()) -> None:
        """Report the counts of a :class:`~chatcodec.Usage` beyond its two that the target lacks.

        ``has`` names those it has a field for (``"cached_tokens"``...); a total
        is lost only when it is not the sum of the two.
        """
        total = usage.total_tokens
        summed = total is None or total == usage.prompt_tokens + usage.completion_tokens
        if not summed and "total_tokens" not in has:
            self.lose(path + ".total_tokens", f"{self.provider} has no total token count")
        for name, words in _COUNTS:
            if getattr(usage, name) is not None and name not in has:
                self.lose(f"{path}.{name}", f"{self.provider} has no {words} token count")

    def _held(self, provider: str, inner: Any, path: str) -> None:
        # The keys of an inner object kept for the way back beside its layout
        # (a null kept as sent, an empty description): each one that says
        # something is lost here. A list holds each part's ``[length, keys]``.
        if type(inner) is list:
            for j, part in enumerate(inner):
                if type(part) is list and len(part) == 2:
                    self._held(provider, part[1], f"{path}[{j}]")
            return
        if type(inner) is not dict:
            return
        for name, item in inner.items():
            if item is not None and item != "" and item is not False:
                name = name[1:] if name.startswith(LITERAL) else name  # a wire key, as sent
                self.lose(
                    path + key_step(name), f"{a(provider)} field {self.provider} has no place for"
                )


# -- base64 alphabets ----------------------------------------------------------

_TO_STANDARD = FrozenMap(str.maketrans("-_", "+/"))
_TO_URLSAFE = FrozenMap(str.maketrans("+/", "-_"))


def base64_form(data: str) -> str | None:
    """How ``data`` departs from standard padded base64: ``"url"``, ``"nopad"``, both, or None.

    Gemini may send ``inlineData.data`` in the URL-safe alphabet, unpadded;
    every other family's base64 fields are standard.
    """
    url = "-" in data or "_" in data
    n = len(data)
    if "\n" in data or "\r" in data:
        n -= data.count("\n") + data.count("\r")
    nopad = n % 4 != 0
    if url and nopad:
        return "url-nopad"
    return "url" if url else "nopad" if nopad else None


def to_standard_base64(data: str) -> str:
    """``data`` in the standard, padded alphabet."""
    data = data.translate(_TO_STANDARD)
    n = len(data) - data.count("\n") - data.count("\r")
    return data + "=" * (-n % 4)


_TO_STANDARD_BYTES = bytes.maketrans(b"-_", b"+/")


def standard_base64_json(data: bytes) -> bytes:
    """Base64 data as a JSON string as sent (ASCII, no escape), in the standard padded alphabet.

    :func:`to_standard_base64` on the bytes: data of megabytes is neither
    decoded nor encoded again, and data already standard is returned as it is.
    """
    n = len(data) - 2
    if b"\n" in data or b"\r" in data:
        n -= data.count(b"\n") + data.count(b"\r")
    padding = -n % 4
    if b"-" in data or b"_" in data:
        data = data.translate(_TO_STANDARD_BYTES)
    elif not padding:
        return data
    return data[:-1] + b"=" * padding + b'"' if padding else data


def from_standard_base64(data: str, form: str) -> str:
    """Standard base64 written back in ``form`` (as :func:`base64_form` named it)."""
    if form.startswith("url"):
        data = data.translate(_TO_URLSAFE)
    if form.endswith("nopad"):
        data = data.rstrip("=")
    return data


def choice_written(request: Request, sent: int, enc: Encoding) -> ToolChoice | None:
    """The request's tool choice as a family writes it, ``sent`` of its tools written.

    When tools were left out (another provider's built-in tools), a choice
    that needs them would be refused: a mode that needs a tool, with none
    written, or a named tool left out. It is left out too, and reported.
    """
    choice = request.tool_choice
    if choice is None or sent >= len(request.tools):
        return choice
    if choice.mode == "tool":
        names = {t.name for t in request.tools if isinstance(t, ToolDefinition)}
        if choice.name in names:
            return choice
    elif choice.mode == "none" or sent:
        return choice
    enc.lose("$.tool_choice", choice_cannot_run(enc.provider))
    return None
