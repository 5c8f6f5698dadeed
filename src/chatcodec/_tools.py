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
from collections.abc import Mapping
from datetime import datetime
from typing import TYPE_CHECKING, Any, Literal, TypeVar, overload

import msgspec
from msgspec import UNSET, Raw, UnsetType

from ._errors import (
    DECODE_FAILURES,
    ArgumentTypeError,
    MissingArgumentError,
    ValidationError,
    from_msgspec,
)
from ._problems import Problem
from ._record import Record, json_decoder
from ._schema import any_open, close_objects, object_schema, open_objects

if TYPE_CHECKING:
    from ._messages import ToolMessage

__all__ = [
    "InvalidToolCall",
    "ToolCall",
    "ToolCallDelta",
    "ToolDefinition",
    "ToolResult",
    "ToolResultDetails",
    "parse_tool_call",
    "tool_call",
]

T = TypeVar("T")
Approval = Literal["pending", "approved", "denied"]
_APPROVALS = (None, "pending", "approved", "denied")

NAME_RULE = "must match ^[A-Za-z0-9_]{1,64}$"
_NAME = re.compile(r"[A-Za-z0-9_]{1,64}")
# O(1): valid JSON whose first token is "{" is an object.
_OBJECT = re.compile(rb"[ \t\r\n]*\{")
DESCRIPTION_LIMIT = 1024


def check_name(name: str, path: str = "$.name") -> None:
    """Raise unless ``name`` is a valid tool name."""
    if type(name) is not str or _NAME.fullmatch(name) is None:
        raise ValidationError(NAME_RULE, path)


class ToolCall(Record, frozen=True):
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
        if not self.id:
            raise ValidationError("must not be empty", "$.id")
        if not self.name:
            raise ValidationError("must not be empty", "$.name")
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

    def __hash__(self) -> int:
        return hash((self.id, self.name, bytes(self.arguments), self.approval))

    def with_approval(self, approval: Approval | None) -> ToolCall:
        """A copy with the approval status changed (calls are immutable)."""
        if approval not in _APPROVALS:
            raise ValidationError("must be pending, approved, denied or None", "$.approval")
        return msgspec.structs.replace(self, approval=approval)

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

        Raises
        ------
        ArgumentTypeError
            If the arguments do not fit ``type``; the path names the argument.
        """
        return _decode_arguments(self.arguments, type)


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
        return ToolCall(id, name, json_decoder(Raw).decode(data))
    if reason is None:
        reason = "tool call has no id" if not id else "tool call has no name"
    return InvalidToolCall(id=id or None, name=name or None, arguments=text, error=reason)


def _argument_problem(data: bytes) -> str | None:
    """Why ``data`` is not the text of a JSON object, or None. One scan in C."""
    if not data.strip():
        return "arguments are empty"
    if not data.isascii():
        try:
            data.decode()  # msgspec does not check UTF-8 inside a Raw value
        except UnicodeDecodeError:
            return "arguments are not valid UTF-8"
    try:
        json_decoder(Raw).decode(data)
    except DECODE_FAILURES:
        return "arguments are not valid JSON"
    if _OBJECT.match(data) is None:
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
    if isinstance(arguments, Mapping):
        return ToolCall(id, name, Raw(_encode_arguments(arguments)))
    data = bytes(arguments) if isinstance(arguments, Raw) else arguments
    data = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else bytes(data)
    reason = _argument_problem(data)
    if reason is not None:
        raise ValidationError(reason, "$.arguments")
    return ToolCall(id, name, Raw(data))


def _encode_arguments(arguments: Mapping[str, Any]) -> bytes:
    if not _finite(arguments):
        raise ValidationError("must not hold NaN or infinity", "$.arguments")
    try:
        return msgspec.json.encode(dict(arguments))
    except (TypeError, ValueError, OverflowError, RecursionError, UnicodeError):
        raise ValidationError("must hold only JSON values", "$.arguments") from None


def _finite(value: Any) -> bool:
    """False if a float in ``value`` is NaN or infinite (JSON has neither)."""
    if isinstance(value, float):
        return value - value == 0.0
    if isinstance(value, Mapping):
        return all(_finite(item) for item in value.values())
    if isinstance(value, list | tuple):
        return all(_finite(item) for item in value)
    return True


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
        if self.duration is not None and not self.duration >= 0:
            raise ValidationError("must not be negative", "$.duration")

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


class ToolResult(Record, frozen=True):
    """The outcome of running a tool.

    Examples
    --------
    >>> ToolResult.error("call_1", "city not found").is_error
    True
    """

    tool_call_id: str
    result: str
    is_error: bool = False

    def __post_init__(self) -> None:
        if not self.tool_call_id:
            raise ValidationError("must not be empty", "$.tool_call_id")

    @classmethod
    def success(cls, tool_call_id: str, result: str) -> ToolResult:
        """A successful result."""
        return cls(tool_call_id, result)

    @classmethod
    def error(cls, tool_call_id: str, message: str) -> ToolResult:
        """A failed result; ``message`` is what the model is told."""
        return cls(tool_call_id, message, is_error=True)

    def to_message(
        self, *, id: str | None = None, metadata: dict[str, Any] | None = None
    ) -> ToolMessage:
        """The tool message that carries this result."""
        from ._messages import ToolMessage

        return ToolMessage(
            self.tool_call_id, self.result, is_error=self.is_error, id=id, metadata=metadata
        )


class ToolDefinition(Record, frozen=True, tag_field="type", tag="function"):
    """A tool the model may call.

    Parameters
    ----------
    name : str
        Matches ``^[A-Za-z0-9_]{1,64}$``.
    description : str, optional
        What the tool does. Longer than 1024 characters is allowed and
        reported by :meth:`problems`.
    parameters : dict, optional
        JSON Schema of the arguments, ``{"type": "object", ...}``; ``None``
        means the tool takes no arguments.
    strict : bool, default True
        Emit ``additionalProperties: false`` on every object schema
        (see :meth:`emitted_parameters`). A schema that allows additional
        properties anywhere (a map type, say) is refused: pass
        ``strict=False`` for it.
    """

    name: str
    description: str | None = None
    parameters: dict[str, Any] | None = None
    strict: bool = True

    def __post_init__(self) -> None:
        check_name(self.name)
        params = self.parameters
        if params is None:
            return
        if type(params) is not dict or params.get("type") != "object":
            raise ValidationError('must be a JSON Schema with "type": "object"', "$.parameters")
        if self.strict and any_open(params):
            open_paths = open_objects(params, "$.parameters")
            rule = "must be false or absent when strict (a map type needs strict=False)"
            raise ValidationError(rule, open_paths[0])

    def problems(self) -> list[Problem]:
        """Return what is allowed but likely to be refused by a provider."""
        found: list[Problem] = []
        if self.description is not None and len(self.description) > DESCRIPTION_LIMIT:
            found.append(
                Problem(
                    "$.description",
                    f"longer than {DESCRIPTION_LIMIT} characters",
                    severity="warning",
                )
            )
        return found

    def emitted_parameters(self) -> dict[str, Any]:
        """The parameter schema as it is sent to a provider.

        With ``strict``, every object schema gets ``additionalProperties:
        false``; without parameters, an empty object schema.
        """
        params = self.parameters or {"type": "object", "properties": {}}
        return close_objects(params) if self.strict else params

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

        Required fields are those without a default; ``$ref`` s are inlined.
        The name defaults to the type's name and the description to its
        docstring.

        Examples
        --------
        >>> import msgspec
        >>> class GetWeather(msgspec.Struct):
        ...     '''Current weather in a city.'''
        ...     city: str
        ...     unit: str = "C"
        >>> tool = ToolDefinition.from_type(GetWeather, name="get_weather")
        >>> tool.parameters["required"], tool.description
        (['city'], 'Current weather in a city.')
        """
        schema, doc = object_schema(type_)
        return cls(
            name if name is not None else type_.__name__,
            description if description is not None else doc,
            schema,
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
