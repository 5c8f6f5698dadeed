"""Tool calls, tool results, tool definitions and streaming deltas.

Arguments stay the raw bytes of a JSON object (:class:`msgspec.Raw`): a decode
keeps a view of the input without building Python objects, an encode writes the
bytes back unchanged, and the helpers parse only when asked.  What the model
sent that is not a JSON object becomes an :class:`InvalidToolCall` with the
text kept verbatim, never an exception out of a decoder.
"""

from __future__ import annotations

import re
import traceback
from collections.abc import Callable, Mapping
from datetime import datetime
from typing import Any, Literal, TypeVar, overload

import msgspec
from msgspec import UNSET, Raw, UnsetType

from ._cache import Cacheable, CachePoint, check_cache
from ._depth import check_depth
from ._errors import (
    DECODE_FAILURES,
    ArgumentTypeError,
    MissingArgumentError,
    ValidationError,
    from_msgspec,
)
from ._fields import check_datetime, check_extras, check_number, check_optional
from ._frozen import freeze_json
from ._problems import Problem
from ._record import Record, json_decoder
from ._schema import (
    FrozenDict,
    any_open,
    close_objects,
    freeze_schema,
    object_schema,
    open_objects,
    strict_form,
    thaw,
    unsupported,
)
from ._signature import function_type

__all__ = [
    "InvalidToolCall",
    "ToolCall",
    "ToolCallDelta",
    "ToolDefinition",
    "ToolResultDetails",
    "parse_tool_call",
    "tool_call",
]

T = TypeVar("T")
Approval = Literal["pending", "approved", "denied"]
_APPROVALS = (None, "pending", "approved", "denied")
_APPROVAL_RULE = "must be pending, approved, denied or None"
_EMPTY = "must not be empty"
_TEXT = "must be a string"
_BOOL = "must be true or false"

NAME_RULE = "must match ^[A-Za-z0-9_]{1,64}$"
_NAME = re.compile(r"[A-Za-z0-9_]{1,64}")
# O(1): valid JSON whose first token is "{" is an object.
_OBJECT = re.compile(rb"[ \t\r\n]*\{")
DESCRIPTION_LIMIT = 1024


def _check_text(value: object, path: str) -> None:
    """The slow branch of a text rule: a subclass of ``str`` passes if not empty."""
    if not isinstance(value, str):
        raise ValidationError(_TEXT, path)
    if not value:
        raise ValidationError(_EMPTY, path)


# Names that passed the rule: an application calls few tools, many times, and
# a set lookup costs a fifth of the regex. Bounded, so a stream of made-up
# names cannot grow it without end.
_GOOD_NAMES: set[str] = set()
_GOOD_NAMES_LIMIT = 4096


def check_name(name: str, path: str = "$.name") -> None:
    """Raise unless ``name`` is a valid tool name."""
    if type(name) is str and name in _GOOD_NAMES:
        return
    if type(name) is not str or _NAME.fullmatch(name) is None:
        raise ValidationError(NAME_RULE, path)
    if len(_GOOD_NAMES) < _GOOD_NAMES_LIMIT:
        _GOOD_NAMES.add(name)


class ToolCall(Cacheable, frozen=True):
    """A model's request to run a tool.

    Parameters
    ----------
    id : str
        Non-empty id that the tool's result answers.
    name : str
        The tool's name.
    arguments : msgspec.Raw
        The bytes of a JSON object. Build from a dict or text with
        :func:`tool_call`, which checks the JSON fully.
    approval : {"pending", "approved", "denied"}, optional
        Whether the user let the call run; :meth:`with_approval` changes
        it. A denied call is answered, for providers, by a tool result
        saying so.
    cache : CachePoint, optional
        A provider may cache the prompt up to and including this call.

    Examples
    --------
    >>> call = tool_call("call_1", "get_weather", {"city": "Paris"})
    >>> call.get_argument("city", str)
    'Paris'
    >>> bytes(call.arguments)
    b'{"city":"Paris"}'
    >>> call.with_approval("denied").approval
    'denied'
    """

    id: str
    name: str
    arguments: Raw
    approval: Approval | None = None

    def __post_init__(self) -> None:
        if not self.id or type(self.id) is not str:
            _check_text(self.id, "$.id")
        if not self.name or type(self.name) is not str:
            _check_text(self.name, "$.name")
        if self.approval is not None and self.approval not in _APPROVALS:
            raise ValidationError(_APPROVAL_RULE, "$.approval")
        # One copy of the bytes serves both checks; it costs less than any way
        # of looking into a Raw in place (a regex on it costs twice as much).
        arguments = self.arguments
        text = bytes(arguments) if type(arguments) is Raw else b""
        # text[0] (123 is "{") costs less than a slice; lstrip only when it is not.
        if not (text and text[0] == 123) and text.lstrip()[:1] != b"{":
            raise ValidationError("must be a JSON object", "$.arguments")
        if not text.isascii():  # msgspec does not check UTF-8 inside a Raw
            try:
                text.decode()
            except UnicodeDecodeError:
                raise ValidationError("must be UTF-8", "$.arguments") from None
        if self.extras is not None and type(self.extras) is not dict:
            check_extras(self.extras)
        if self.cache is not None and type(self.cache) is not CachePoint:
            check_cache(self.cache)

    def __hash__(self) -> int:
        return hash((self.id, self.name, bytes(self.arguments), self.approval, self.cache))

    def with_approval(self, approval: Approval | None) -> ToolCall:
        """A copy with the approval status changed (calls are immutable).

        Raises
        ------
        ValidationError
            If ``approval`` is not ``"pending"``, ``"approved"``, ``"denied"``
            or ``None``.
        """
        if approval not in _APPROVALS:
            raise ValidationError(_APPROVAL_RULE, "$.approval")
        return msgspec.structs.replace(self, approval=approval)

    @property
    def arguments_bytes(self) -> bytes:
        """The arguments' JSON, as the bytes they arrived as."""
        return bytes(self.arguments)

    @property
    def arguments_text(self) -> str:
        """The arguments' JSON as text: what ``json.loads`` takes."""
        return bytes(self.arguments).decode()

    def arguments_dict(self) -> dict[str, Any]:
        """Parse the arguments into a dict."""
        parsed: dict[str, Any] = _decode_arguments(self.arguments, dict[str, Any])
        return parsed

    @overload
    def get_argument(self, key: str) -> Any: ...
    @overload
    def get_argument(self, key: str, type: type[T]) -> T: ...
    @overload
    def get_argument(self, key: str, type: Any) -> Any: ...
    def get_argument(self, key: str, type: Any = Any) -> Any:
        """Return one argument, parsed and checked against ``type``.

        Only the top level of the object is scanned, and only that value is
        parsed.

        Raises
        ------
        MissingArgumentError
            If there is no such argument (also a ``KeyError``).
        ArgumentTypeError
            If the value does not have the type asked for (also a ``ValueError``).
        """
        fields = _decode_arguments(self.arguments, dict[str, Raw])
        try:
            raw = fields[key]
        except KeyError:
            raise MissingArgumentError(key) from None
        return _decode_arguments(raw, type, "$.arguments[...]")

    @overload
    def try_get_argument(self, key: str) -> Any | UnsetType: ...
    @overload
    def try_get_argument(self, key: str, type: type[T]) -> T | UnsetType: ...
    @overload
    def try_get_argument(self, key: str, type: Any) -> Any | UnsetType: ...
    def try_get_argument(self, key: str, type: Any = Any) -> Any:
        """Like :meth:`get_argument`, but return ``msgspec.UNSET`` on a miss.

        A miss is an absent argument or one of another type.

        Examples
        --------
        >>> from msgspec import UNSET
        >>> tool_call("c1", "f", {"n": 2}).try_get_argument("unit", str) is UNSET
        True
        """
        try:
            return self.get_argument(key, type)
        except (MissingArgumentError, ArgumentTypeError):
            return UNSET

    @overload
    def arguments_as(self, type: type[T]) -> T: ...
    @overload
    def arguments_as(self, type: Any) -> Any: ...
    def arguments_as(self, type: Any) -> Any:
        """Decode the arguments straight into ``type`` with msgspec's validation.

        ``type`` may be a Struct, dataclass, TypedDict or any type msgspec
        decodes.

        A ``null`` where ``type`` does not take one is read as an absent
        argument (the field gets its default): that is how a strict tool
        (see :meth:`ToolDefinition.from_type`) leaves an optional argument
        out.

        Raises
        ------
        ArgumentTypeError
            If the arguments do not fit ``type``; the path names the argument.
        """
        try:
            return _decode_arguments(self.arguments, type)
        except ArgumentTypeError as exc:
            if b"null" not in bytes(self.arguments):
                raise
            error = exc
        arguments = self.arguments_dict()
        check_depth(arguments, "$.arguments")  # before the walk below
        try:
            return msgspec.convert(_without_nulls(arguments), type)
        except msgspec.ValidationError:
            raise error from None


def _without_nulls(value: Any) -> Any:
    """``value`` with every object member whose value is ``null`` left out."""
    if isinstance(value, dict):
        return {key: _without_nulls(item) for key, item in value.items() if item is not None}
    if isinstance(value, list):
        return [_without_nulls(item) for item in value]
    return value


def _decode_arguments(raw: Raw, type_: Any, path: str = "$.arguments") -> Any:
    try:
        return json_decoder(type_).decode(raw)
    except DECODE_FAILURES as exc:
        error = from_msgspec(exc, path)
        if isinstance(error, ValidationError):
            raise ArgumentTypeError(error.rule, error.path) from None
        raise error from None


class InvalidToolCall(Record, frozen=True):
    """A tool call whose arguments are not a JSON object, kept as sent.

    Parameters
    ----------
    id, name : str, optional
        As the model sent them, when it did.
    arguments : str
        The argument text exactly as received.
    error : str
        Why it is not a :class:`ToolCall` (chatcodec's words, no content).
    """

    id: str | None = None
    name: str | None = None
    arguments: str = ""
    error: str = ""

    def __post_init__(self) -> None:
        if self.id is not None and type(self.id) is not str:
            _check_text(self.id, "$.id")
        if self.name is not None and type(self.name) is not str:
            _check_text(self.name, "$.name")
        if type(self.arguments) is not str and not isinstance(self.arguments, str):
            raise ValidationError(_TEXT, "$.arguments")
        if type(self.error) is not str and not isinstance(self.error, str):
            raise ValidationError(_TEXT, "$.error")
        if self.extras is not None and type(self.extras) is not dict:
            check_extras(self.extras)


def parse_tool_call(id: str, name: str, arguments: str | bytes) -> ToolCall | InvalidToolCall:
    """Turn argument text from a model into a tool call, or keep it as invalid.

    The text is checked in full (one scan in C, no Python objects built); what
    is not a JSON object becomes an :class:`InvalidToolCall` holding the text.
    Never raises for bad arguments.
    """
    data = arguments.encode("utf-8", "surrogatepass") if isinstance(arguments, str) else arguments
    text = arguments if isinstance(arguments, str) else arguments.decode("utf-8", "replace")
    reason = _argument_problem(data)
    if reason is None and id and name:
        return ToolCall(id, name, _RAW_DECODER.decode(data))
    if reason is None:
        reason = "tool call has no id" if not id else "tool call has no name"
    return InvalidToolCall(id=id or None, name=name or None, arguments=text, error=reason)


def _argument_problem(data: bytes) -> str | None:
    """Why ``data`` is not the text of a JSON object, or None. One scan in C."""
    if not data.isascii():
        try:
            data.decode()  # msgspec does not check UTF-8 inside a Raw value
        except UnicodeDecodeError:
            return "arguments are not valid UTF-8"
    try:
        _RAW_DECODER.decode(data)
    except DECODE_FAILURES:
        return "arguments are empty" if not data.strip() else "arguments are not valid JSON"
    # Valid JSON: its first byte that is not whitespace says what it is.
    if data[0] != 123 and _OBJECT.match(data) is None:
        return "arguments are valid JSON but not an object"
    return None


def tool_call(
    id: str,
    name: str,
    arguments: Mapping[str, Any] | str | bytes | Raw | None = None,
) -> ToolCall:
    """Build a :class:`ToolCall`, checking every rule in full.

    Unlike the class itself, which checks what is O(1), this checks the name
    against ``^[A-Za-z0-9_]{1,64}$`` and the arguments as complete JSON.

    Parameters
    ----------
    id : str
        The call's id.
    name : str
        The tool's name.
    arguments : mapping, str, bytes or msgspec.Raw, optional
        The arguments; a mapping is encoded, text must be a JSON object.
        ``None`` means no arguments (``{}``).

    Raises
    ------
    ValidationError
        If a rule is broken.
    """
    check_name(name)
    if arguments is None:
        return ToolCall(id, name, Raw(b"{}"))
    kind = type(arguments)
    if kind is dict or (kind not in _TEXT_KINDS and isinstance(arguments, Mapping)):
        return ToolCall(id, name, Raw(_encode_arguments(arguments)))  # type: ignore[arg-type]
    if kind is Raw:
        raw: Raw | None = arguments  # type: ignore[assignment]
        data = bytes(arguments)  # type: ignore[arg-type]
    else:
        raw = None
        text: Any = arguments
        data = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else bytes(text)
    reason = _argument_problem(data)
    if reason is not None:
        raise ValidationError(reason, "$.arguments")
    return ToolCall(id, name, raw if raw is not None else Raw(data))


_TEXT_KINDS = (str, bytes, Raw)
_RAW_DECODER = json_decoder(Raw)


def _encode_arguments(arguments: Mapping[str, Any]) -> bytes:
    try:
        data = msgspec.json.encode(arguments if type(arguments) is dict else dict(arguments))
    except (TypeError, ValueError, OverflowError, RecursionError, UnicodeError):
        raise ValidationError("must hold only JSON values", "$.arguments") from None
    # msgspec writes NaN and infinity as null: only output with a null can
    # hold one, so only then is the value walked.
    if b"null" in data:
        check_depth(arguments, "$.arguments")  # before the walk below
        if not _finite(arguments):
            raise ValidationError("must not hold NaN or infinity", "$.arguments")
    return data


def _finite(value: Any) -> bool:
    """False if a float in ``value`` is NaN or infinite (JSON has neither)."""
    if isinstance(value, float):
        return value - value == 0.0
    if isinstance(value, Mapping):
        return all(_finite(item) for item in value.values())
    if isinstance(value, list | tuple):
        return all(_finite(item) for item in value)
    return True


def _holds_raw(value: Any) -> bool:
    """Whether ``value`` (checked JSON) is or holds a :class:`msgspec.Raw`."""
    stack = [value]
    while stack:
        item = stack.pop()
        if type(item) is msgspec.Raw:
            return True
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list | tuple):
            stack.extend(item)
    return False


class ToolResultDetails(Record, frozen=True):
    """What an application knows about a tool's run, kept in storage.

    Providers get only what they have a field for (Anthropic's ``is_error``
    comes from the message's ``is_error``); the rest stays here.

    Parameters
    ----------
    error_message : str, optional
        What went wrong, for the application (the model sees the content).
    recoverable : bool, optional
        Whether running it again may succeed.
    duration : float, optional
        How long it ran, in seconds.
    timestamp : datetime, optional
        When it finished.
    output : JSON value, optional
        Structured output (an object, array, string, number...).
    stack_trace : str, optional
        The traceback of a failed run, when there is one. Stored with the
        message for the application; no encoder sends it to a model.

    Examples
    --------
    >>> try:
    ...     {}["city"]
    ... except KeyError as exc:
    ...     details = ToolResultDetails.from_exception(exc, recoverable=False)
    >>> details.error_message, details.stack_trace.splitlines()[0]
    ("KeyError: 'city'", 'Traceback (most recent call last):')
    """

    error_message: str | None = None
    recoverable: bool | None = None
    duration: float | None = None
    timestamp: datetime | None = None
    output: Any = None
    stack_trace: str | None = None

    def __post_init__(self) -> None:
        if self.duration is not None:
            if type(self.duration) is not float:
                check_number(self.duration, "$.duration")
            if self.duration - self.duration != 0:
                raise ValidationError("must be finite", "$.duration")
            if not self.duration >= 0:
                raise ValidationError("must not be negative", "$.duration")
        check_optional(self, "error_message", "stack_trace")
        if self.recoverable is not None and type(self.recoverable) is not bool:
            raise ValidationError(_BOOL, "$.recoverable")
        check_datetime(self.timestamp, "$.timestamp")
        if self.extras is not None and type(self.extras) is not dict:
            check_extras(self.extras)
        output = self.output
        if output is not None and type(output) is not str:
            frozen = freeze_json({"output": output}, "$")["output"]
            if _holds_raw(frozen):
                # JSON text given as msgspec.Raw is held as its value: the value
                # decode reads back (Raw(b"null") is None, not a Raw).
                try:
                    value = msgspec.json.decode(msgspec.json.encode(frozen))
                except msgspec.DecodeError:
                    raise ValidationError("must be JSON", "$.output") from None
                frozen = freeze_json({"output": value}, "$")["output"]
            if frozen is not output:
                msgspec.structs.force_setattr(self, "output", frozen)

    @classmethod
    def from_exception(cls, exc: BaseException, **fields: Any) -> ToolResultDetails:
        """The details of a run that raised ``exc``: what it said, and its traceback.

        ``error_message`` is the last line of the traceback (the exception's
        type and text), ``stack_trace`` the whole formatted traceback
        (``traceback.format_exception``); ``fields`` sets the others. Both may
        quote what the tool was given: they are stored, and never shown by a
        ``repr`` or sent to a model.
        """
        said = str(exc)
        message = f"{type(exc).__name__}: {said}" if said else type(exc).__name__
        trace = "".join(traceback.format_exception(exc))
        return cls(error_message=message, stack_trace=trace, **fields)


class ToolDefinition(Cacheable, frozen=True, tag_field="type", tag="function"):
    """A tool the model may call.

    A definition is immutable, like every record: ``parameters`` is a copy of
    the schema given, checked once and frozen (a ``dict`` that refuses
    changes, with lists that refuse them too), so what was checked is what
    is sent, and the definition is hashable.

    Parameters
    ----------
    name : str
        Matches ``^[A-Za-z0-9_]{1,64}$``.
    description : str, optional
        What the tool does; not empty when given. Longer than 1024
        characters is allowed and reported by :meth:`problems`.
    parameters : dict, optional
        JSON Schema of the arguments, ``{"type": "object", ...}``; ``None``
        means the tool takes no arguments.
    strict : bool, default True
        Emit ``additionalProperties: false`` on every object schema
        (see :meth:`emitted_parameters`). A schema that allows additional
        properties anywhere (a map type, say) is refused: pass
        ``strict=False`` for it.
    cache : CachePoint, optional
        A provider may cache the prompt up to and including this tool
        (the tools come first in the prompt).

    Raises
    ------
    ValidationError
        If the name breaks its rule, the description is empty or not a
        string, or the parameters are not an object schema (or are open
        somewhere while ``strict``).
    """

    name: str
    description: str | None = None
    parameters: dict[str, Any] | None = None
    strict: bool = True

    def __post_init__(self) -> None:
        check_name(self.name)
        if self.cache is not None and type(self.cache) is not CachePoint:
            check_cache(self.cache)
        description = self.description
        if description is not None and (not description or type(description) is not str):
            _check_text(description, "$.description")
        if self.strict is not True and self.strict is not False:
            raise ValidationError(_BOOL, "$.strict")
        params = self.parameters
        if params is None:
            return
        if not isinstance(params, dict) or params.get("type") != "object":
            raise ValidationError('must be a JSON Schema with "type": "object"', "$.parameters")
        if type(params) is not FrozenDict:
            # Frozen first: freezing checks the depth every later walk relies on.
            params = freeze_schema(params)
            msgspec.structs.force_setattr(self, "parameters", params)
        if self.strict and any_open(params):
            open_paths = open_objects(params, "$.parameters")
            rule = "must be false or absent when strict (a map type needs strict=False)"
            raise ValidationError(rule, open_paths[0])

    def problems(self, family: str | None = None) -> list[Problem]:
        """Return what is allowed but likely to be refused by a provider.

        Parameters
        ----------
        family : str, optional
            A provider family (``"openai"``, ``"anthropic"``, ``"gemini"``,
            ``"ollama"``): also report the schema keywords that family
            refuses or ignores, at their paths, as warnings.
        """
        found: list[Problem] = []
        if self.description is not None and len(self.description) > DESCRIPTION_LIMIT:
            found.append(
                Problem(
                    "$.description",
                    f"longer than {DESCRIPTION_LIMIT} characters",
                    severity="warning",
                )
            )
        if family is not None and self.parameters is not None:
            found.extend(
                Problem(path, rule, severity="warning")
                for path, rule in unsupported(self.parameters, family, self.strict)
            )
        return found

    def emitted_parameters(self) -> dict[str, Any]:
        """The parameter schema as it is sent to a provider (a new plain dict).

        With ``strict``, every object schema gets ``additionalProperties:
        false``; without parameters, an empty object schema.
        """
        params = self.parameters or {"type": "object", "properties": {}}
        return close_objects(params) if self.strict else thaw(params)  # type: ignore[no-any-return]

    @classmethod
    def from_type(
        cls,
        type_: Any,
        *,
        name: str | None = None,
        description: str | None = None,
        strict: bool = True,
    ) -> ToolDefinition:
        """Generate a definition from a Struct, dataclass or TypedDict.

        ``$ref`` s are inlined. The name defaults to the type's name and the
        description to its docstring. Without ``strict``, the required
        fields are those without a default. With ``strict`` (the default),
        the schema is the one strict modes accept (OpenAI's is the
        strictest): every property is required, and a field with a default
        takes ``null`` as well, meaning "use the default" (the default is
        named in its description, since strict schemas refuse ``default``).
        :meth:`ToolCall.arguments_as` reads such a ``null`` as absent.

        Raises
        ------
        ValidationError
            If a field's type has no JSON Schema, or the name (the type's
            name by default) breaks the tool-name rule.

        Examples
        --------
        >>> import msgspec
        >>> class GetWeather(msgspec.Struct):
        ...     '''Current weather in a city.'''
        ...     city: str
        ...     unit: str = "C"
        >>> tool = ToolDefinition.from_type(GetWeather, name="get_weather")
        >>> tool.parameters["required"], tool.description
        (['city', 'unit'], 'Current weather in a city.')
        >>> tool.parameters["properties"]["unit"]
        {'type': ['string', 'null'], 'description': 'Default: "C".'}
        >>> ToolDefinition.from_type(GetWeather, strict=False).parameters["required"]
        ['city']
        """
        schema, doc = object_schema(type_)
        return cls(
            name if name is not None else type_.__name__,
            description if description is not None else doc,
            strict_form(schema) if strict else schema,
            strict=strict,
        )

    @classmethod
    def from_function(
        cls,
        function: Callable[..., Any],
        *,
        name: str | None = None,
        description: str | None = None,
        strict: bool = True,
    ) -> ToolDefinition:
        """Generate a definition from a plain function's signature and docstring.

        The name defaults to the function's name. The docstring's summary
        (the text before its parameter section) is the description, and
        each parameter's text in a numpydoc ``Parameters`` section or a
        Google-style ``Args:`` section becomes that property's
        ``description``. Parameters are typed by their annotations (any
        type msgspec knows; unannotated ones take any JSON value), and
        those without a default are required (see :meth:`from_type` for
        ``strict``). ``self``, ``cls``, ``*args`` and ``**kwargs`` are left
        out.

        Raises
        ------
        ValidationError
            If an annotation has no JSON Schema, or a parameter is
            positional-only.

        Examples
        --------
        >>> def get_weather(city: str, unit: str = "C") -> str:
        ...     '''Current weather in a city.
        ...     Args:
        ...         city: The city's name.
        ...         unit: "C" or "F".
        ...     '''
        ...     return "sunny"
        >>> tool = ToolDefinition.from_function(get_weather, strict=False)
        >>> tool.name, tool.description
        ('get_weather', 'Current weather in a city.')
        >>> tool.parameters["properties"]["city"]
        {'description': "The city's name.", 'type': 'string'}
        """
        type_, doc = function_type(function)
        schema, _ = object_schema(type_)
        return cls(
            name if name is not None else function.__name__,
            description if description is not None else doc,
            strict_form(schema) if strict else schema,
            strict=strict,
        )


class ToolCallDelta(Record, frozen=True):
    """One streamed fragment of a tool call.

    ``id`` and ``name`` usually come only with a call's first fragment; later
    ones carry the ``index`` and a piece of the argument text.
    """

    index: int | None
    id: str | None = None
    name: str | None = None
    arguments_delta: str | None = None
