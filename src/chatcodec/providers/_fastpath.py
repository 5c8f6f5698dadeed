"""What every typed fast path shares: the wire base, the way out, and carried keys.

A family's fast path (``<family>/_fast.py``) decodes the usual body straight
into private msgspec Structs, in C, and maps them to the canonical form with
a handful of attribute reads. Its Structs derive from :class:`Wire`, which
forbids unknown fields: a body they do not fit fails the typed decode, so
does a value a canonical constructor refuses, and the fast path returns
``None`` (:data:`GIVE_UP` names what it catches) for the caller to take the
general path, which gives the same result (a test proves it on every recorded
body). Its shape, in every family::

    def fast_response(body):
        try:
            r = _decoder.decode(body)
            own = {}
            _carry(r, own)  # keys kept as sent
            message = AssistantMessage(r.text, ...)  # the usual fields, read from r
            return Response(message, ...)
        except GIVE_UP:
            return None

The keys a family keeps as sent in ``extras`` (a ``logprobs``, a
``createTime``...) are fields of the Struct typed ``Any = UNSET``: an absent
key stays ``UNSET``, ``null`` is ``None``. :func:`carrier` writes the function
that copies them into the record's own extras, by their wire names.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec
from msgspec import UNSET, Raw, Struct

from .._errors import DECODE_FAILURES, DepthError, ValidationError

__all__ = ["GIVE_UP", "Wire", "carrier", "in_wire_order"]

GIVE_UP = (*DECODE_FAILURES, ValidationError, DepthError)
"""What makes a fast path return ``None``: a body it does not decode or map.

A value too deep (:class:`~chatcodec.DepthError`) is refused by the general
path, which names where it is in the body."""


class Wire(Struct, forbid_unknown_fields=True, gc=False):
    """Base of the fast paths' wire Structs: unknown keys fail the decode.

    A family adds its own options on its base (``rename="camel"``,
    ``tag_field="type"``).
    """


def carrier(
    struct: type[Struct], *sent: str, nulls: tuple[str, ...] = ()
) -> Callable[[Any, dict[str, Any]], None]:
    """A function ``carry(r, own)`` copying the fields of ``r`` the wire sent into ``own``.

    Each field of ``sent`` that is not ``UNSET`` is copied, then each field of
    ``nulls`` that is ``None`` (a ``null`` the canonical field cannot tell
    from absent) is recorded as ``None``, in that order and under the field's
    wire name (the Struct's ``rename`` applied). ``carrier(_Usage, "tier",
    nulls=("model",))`` writes::

        def carry(r, own):
            if r.tier is not UNSET:
                own["tier"] = r.tier
            if r.model is None:
                own["model"] = None

    The function is written out field by field, as the fast paths were by
    hand: one test per field, where a loop over the names costs twice as much
    (attrs and dataclasses make their methods the same way). The call itself
    costs about as much as two tests: one or two fields stay inline.
    """
    wire = dict(zip(struct.__struct_fields__, struct.__struct_encode_fields__, strict=True))
    lines = ["def carry(r, own):"]
    for name in sent:
        lines += [f"    if r.{name} is not UNSET:", f"        own[{wire[name]!r}] = r.{name}"]
    for name in nulls:
        lines += [f"    if r.{name} is None:", f"        own[{wire[name]!r}] = None"]
    if len(lines) == 1:
        raise ValueError("carrier() needs at least one field")
    scope: dict[str, Any] = {"UNSET": UNSET}
    # The names are the Struct's own field names (identifiers, checked by the
    # lookup above) and the keys are written with repr: nothing else is run.
    exec("\n".join(lines), scope)
    carry: Callable[[Any, dict[str, Any]], None] = scope["carry"]
    carry.__qualname__ = f"carrier.<{struct.__name__}>"
    return carry


_keyed = msgspec.json.Decoder(dict[str, Raw])


def in_wire_order(body: bytes | str, own: dict[str, Any]) -> dict[str, Any]:
    """``own`` (top-level keys a fast path kept as sent) in the order the body sends them.

    A general path keeps the keys it does not read in the body's order, and
    a family that has no place for them reports each one, in that order. A
    typed decode gives them in the Struct's order: when it kept more than one,
    this reads the body's top-level keys again (in C, the values skipped) to
    put them back in place.
    """
    if len(own) < 2:
        return own
    return {key: own[key] for key in _keyed.decode(body) if key in own}
