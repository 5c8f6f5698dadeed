"""Records that are not messages: control records, and kinds from newer versions.

A :class:`ControlRecord` marks something that happened in a conversation
(the agent's mode changed, the user switched branches) for history and
auditing. It lives among the messages of a :class:`~chatcodec.Transcript` or
:class:`~chatcodec.Conversation`, the ordering rules pass over it, and it is
never sent to a model.

:class:`UnknownRecord` and :class:`UnknownPart` hold what a newer chatcodec
(or another writer) stored under a tag this version does not know. They keep
the JSON bytes they came from and are written back byte for byte, so a
transcript survives a round trip through an older reader. They are not
msgspec Structs on purpose: a Struct is always written field by field, and
these must be written exactly as read. Each one decoded is reported as a
warning through the ``chatcodec`` logger (:func:`report_unknown`), on every
decoding path; :func:`chatcodec.decode_lenient` also lists it among its
problems.
"""

from __future__ import annotations

import logging
from typing import Any

import msgspec
from msgspec import Raw

from ._errors import ValidationError
from ._fields import check_extras, check_optional
from ._frozen import freeze_fields
from ._record import Record

__all__ = [
    "ControlRecord",
    "UnknownPart",
    "UnknownRecord",
    "Verbatim",
    "branch_switch",
    "mode_change",
]

LOGGER = logging.getLogger("chatcodec")
"""Where chatcodec reports what it kept without understanding it."""
# A library leaves output to the application: without a logging setup of its
# own, nothing is printed (Python's "last resort" handler stays out of it).
LOGGER.addHandler(logging.NullHandler())

MODE_CHANGE = "mode_change"
BRANCH_SWITCH = "branch_switch"


class ControlRecord(Record, frozen=True, tag_field="role", tag="control"):
    """Something that happened in a conversation, for history; never sent to a model.

    Tagged ``"role": "control"`` so that it sits in the same list as the
    messages; its own kind is ``type``.

    Parameters
    ----------
    type : str
        ``"mode_change"``, ``"branch_switch"``, or any kind of the
        application's own.
    old, new : str, optional
        The value before and after (a mode, a branch).
    parameters : dict, optional
        Anything else about it (JSON values).
    id : str, optional
        An id in storage.
    metadata : dict, optional
        The application's own data about it.

    Examples
    --------
    >>> mode_change("plan", "act")
    ControlRecord(type=<11 chars>, old=<4 chars>, new=<3 chars>)
    """

    type: str
    old: str | None = None
    new: str | None = None
    parameters: dict[str, Any] | None = None
    id: str | None = None
    metadata: dict[str, Any] | None = None

    def __post_init__(self) -> None:
        if not self.type or type(self.type) is not str:
            if not isinstance(self.type, str):
                raise ValidationError("must be a string", "$.type")
            if not self.type:
                raise ValidationError("must not be empty", "$.type")
        check_optional(self, "old", "new", "id")
        if self.extras is not None and type(self.extras) is not dict:
            check_extras(self.extras)
        if self.metadata is not None or self.parameters is not None:
            freeze_fields(self, "metadata", "parameters")

    def __str__(self) -> str:
        return f"control: {self.type}"


def mode_change(old: str | None, new: str, **fields: Any) -> ControlRecord:
    """A record that the conversation's mode changed from ``old`` to ``new``."""
    return ControlRecord(MODE_CHANGE, old, new, **fields)


def branch_switch(old: str | None, new: str, **fields: Any) -> ControlRecord:
    """A record that the conversation switched from branch ``old`` to ``new``."""
    return ControlRecord(BRANCH_SWITCH, old, new, **fields)


class Verbatim:
    """JSON kept as read, written back as is; compared by its JSON value.

    Equal values compare equal whatever their spacing or key order, so a
    record that went through msgpack (which cannot keep JSON bytes) still
    equals the one read from JSON.
    """

    __slots__ = ("data",)
    data: Raw

    def __init__(self, data: Raw | bytes) -> None:
        raw = data if isinstance(data, Raw) else Raw(bytes(data))
        object.__setattr__(self, "data", raw)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable")

    @property
    def tag(self) -> str | None:
        """The tag it was stored under, which this version does not know."""
        try:
            value = _TAGS.decode(self.data)
        except msgspec.DecodeError:
            return None
        tag = value.role if value.role is not None else value.type
        return tag if isinstance(tag, str) else None

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        mine, theirs = bytes(self.data), bytes(other.data)
        return mine == theirs or _value(mine) == _value(theirs)

    def __hash__(self) -> int:
        return hash(_SORTED(_value(bytes(self.data))))

    def __repr__(self) -> str:
        return f"{type(self).__name__}(tag={self.tag!r}, <{len(bytes(self.data))} bytes>)"

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (bytes(self.data),))


class UnknownRecord(Verbatim):
    """A record of a kind this version does not know (an unknown ``role``), verbatim."""

    __slots__ = ()


class UnknownPart(Verbatim):
    """A content part of a kind this version does not know (an unknown ``type``), verbatim."""

    __slots__ = ()


def _value(data: bytes) -> Any:
    try:
        return msgspec.json.decode(data)
    except msgspec.DecodeError:
        return data


_SORTED = msgspec.json.Encoder(order="sorted").encode


class _Tags(msgspec.Struct):
    role: Any = None
    type: Any = None


_TAGS = msgspec.json.Decoder(_Tags)


def report_unknown(kind: type[Verbatim], path: str) -> None:
    """Log a warning that a record or part of an unknown kind was kept verbatim.

    The message names the JSON path, never the tag or the content (both came
    from outside).
    """
    what = "record" if kind is UnknownRecord else "part"
    LOGGER.warning("a %s of a kind this version does not know, kept verbatim - at `%s`", what, path)
