"""Unknown fields go to ``extras``; raw JSON survives msgpack.

The canonical structs forbid unknown fields, so clean input decodes in one C
pass.  When a decode meets a field the schema does not know, it comes here:
a walk directed by the target type (``msgspec.inspect``) moves every unknown
field into the ``extras`` of the record that holds it, then the decode runs
again.  Two walks share the type dispatch:

- :func:`capture_json` works on the JSON bytes, splitting objects into
  ``dict[str, Raw]``, so every value it does not touch (tool-call arguments
  above all) is copied byte for byte;
- :func:`prepare_builtins` works on decoded Python values (msgpack, lenient
  repair) and also turns the JSON text stored at ``Raw`` positions back into
  checked :class:`msgspec.Raw`, since msgpack cannot embed JSON bytes.
"""

from __future__ import annotations

import functools
import re
from typing import Any

import msgspec
import msgspec.inspect as mi
from msgspec import Raw

from ._errors import ValidationError
from ._frozen import FrozenMap
from ._record import json_decoder

__all__ = ["Location", "capture_all", "capture_json", "prepare_builtins", "tags_at", "type_info"]

_EXTRAS = "extras"
_ENCODE = msgspec.json.Encoder().encode


@functools.lru_cache(maxsize=256)
def type_info(type_: Any) -> mi.Type:
    """Return msgspec's (cached) description of ``type_``."""
    return mi.type_info(type_)


def _struct_for(info: mi.Type, obj: dict[str, Any]) -> mi.StructType | None:
    """The struct type of ``info`` that the object ``obj`` is meant to be."""
    if isinstance(info, mi.StructType):
        return info  # a lone struct type needs no tag to be chosen
    options = info.types if isinstance(info, mi.UnionType) else (info,)
    structs = [option for option in options if isinstance(option, mi.StructType)]
    for struct in structs:
        if struct.tag_field is None:
            return struct
        if obj.get(struct.tag_field) == struct.tag:
            return struct
    return None


def _sequence_item(info: mi.Type) -> mi.Type | None:
    options = info.types if isinstance(info, mi.UnionType) else (info,)
    for option in options:
        if isinstance(option, mi.ListType | mi.VarTupleType | mi.SetType | mi.FrozenSetType):
            return option.item_type
    return None


def _fields(struct: mi.StructType) -> dict[str, mi.Field]:
    return {field.encode_name: field for field in struct.fields}


def _merge_extras(found: dict[str, Any], given: Any, path: str) -> dict[str, Any]:
    if given is None:
        return found
    if not isinstance(given, dict):
        raise ValidationError("must be an object", f"{path}.extras")
    clash = found.keys() & given.keys()
    if clash:
        raise ValidationError("a field is both unknown and in extras", f"{path}.extras")
    return {**given, **found}


_SEGMENT = re.compile(r"\.([^.\[]+)|\[(?:\d+|\.\.\.)\]")


def tags_at(type_: Any, path: str) -> list[str]:
    """The allowed values of the tag field that ``path`` (from ``$``) ends on."""
    infos: list[mi.Type] = [type_info(type_)]
    segments = [m.group(1) for m in _SEGMENT.finditer(path)]
    for i, name in enumerate(segments):
        structs = [s for info in infos for s in _options(info) if isinstance(s, mi.StructType)]
        if name is None:  # an index or a dict key
            infos = [t for info in infos for t in _items(info)]
        elif i == len(segments) - 1:
            # Several unions may reach the path (one per message type): each
            # tag once, in the order first seen.
            return list(dict.fromkeys(str(s.tag) for s in structs if s.tag_field == name))
        else:
            infos = [f.type for s in structs for f in s.fields if f.encode_name == name]
    return []


def _options(info: mi.Type) -> tuple[mi.Type, ...]:
    return info.types if isinstance(info, mi.UnionType) else (info,)


def _items(info: mi.Type) -> list[mi.Type]:
    out: list[mi.Type] = []
    for option in _options(info):
        if isinstance(option, mi.ListType | mi.VarTupleType | mi.SetType | mi.FrozenSetType):
            out.append(option.item_type)
        elif isinstance(option, mi.DictType):
            out.append(option.value_type)
    return out


# -- JSON bytes ---------------------------------------------------------------


def capture_json(data: bytes | str, type_: Any) -> bytes | None:
    """Rewrite ``data`` with unknown fields under ``extras``; ``None`` if none moved."""
    moved, _ = capture_all(data, type_)
    return moved


Location = tuple[str | int, ...]

# What stands in for a record or part of an unknown kind during the typed
# decode, by tag field, in order of preference; the decoded stand-in is then
# swapped for the verbatim record (see ``_codec``). Only unions that hold the
# stand-in's type take it: a transcript's records take a control record, a
# union of messages alone a system message.
_STAND_INS = FrozenMap(
    {
        "type": ((b'{"type":"text","text":""}', "text"),),
        "role": (
            (b'{"role":"control","type":"unknown"}', "control"),
            (b'{"role":"system","content":"unknown"}', "system"),
        ),
    }
)


def capture_all(data: bytes | str, type_: Any) -> tuple[bytes | None, list[tuple[Location, Raw]]]:
    """Move unknown fields to ``extras`` and stand in for unknown kinds.

    Returns the rewritten JSON (``None`` if nothing changed) and, for each
    record or part whose tag this version does not know, where it is and its
    bytes as read.
    """
    raw = json_decoder(Raw).decode(data)
    unknown: list[tuple[Location, Raw]] = []
    moved = _capture(raw, type_info(type_), "$", (), unknown)
    return (None if moved is raw else bytes(moved)), unknown


def _first(raw: Raw) -> int:
    data = bytes(raw)
    stripped = data.lstrip()
    return stripped[0] if stripped else 0


def _capture(
    raw: Raw, info: mi.Type, path: str, at: Location, unknown: list[tuple[Location, Raw]]
) -> Raw:
    first = _first(raw)
    if first == ord("{"):
        fields: dict[str, Raw] = json_decoder(dict[str, Raw]).decode(raw)
        tag_fields = _tag_fields(info)
        tags = {
            key: json_decoder(Any).decode(value)
            for key, value in fields.items()
            if key in tag_fields
        }
        struct = _struct_for(info, tags)
        if struct is not None:
            return _capture_struct(raw, fields, struct, path, at, unknown)
        stand_in = _stand_in(info, tags)
        if stand_in is not None:
            unknown.append((at, raw))
            return stand_in
        if isinstance(info, mi.DictType):
            return _rebuild_values(raw, fields, info.value_type, path, at, unknown)
        return raw
    if first == ord("["):
        item = _sequence_item(info)
        if item is None:
            return raw
        items: list[Raw] = json_decoder(list[Raw]).decode(raw)
        new = [
            _capture(value, item, f"{path}[{i}]", (*at, i), unknown)
            for i, value in enumerate(items)
        ]
        if all(a is b for a, b in zip(new, items, strict=True)):
            return raw
        return Raw(_ENCODE(new))
    return raw


def _stand_in(info: mi.Type, tags: dict[str, Any]) -> Raw | None:
    """The stand-in for an object whose tag is a string no option of ``info`` has."""
    options = info.types if isinstance(info, mi.UnionType) else (info,)
    known = {o.tag for o in options if isinstance(o, mi.StructType)}
    for field, value in tags.items():
        if not isinstance(value, str) or field not in _STAND_INS:
            continue
        if field == "role" and value.strip().lower() in known:
            # A known role in another case is a mistake, not a newer kind: it
            # stays an error (lenient decoding repairs a role's case).
            continue
        for data, tag in _STAND_INS[field]:
            if tag in known:
                return Raw(data)
    return None


def _tag_fields(info: mi.Type) -> set[str]:
    options = info.types if isinstance(info, mi.UnionType) else (info,)
    return {o.tag_field for o in options if isinstance(o, mi.StructType) and o.tag_field}


def _capture_struct(
    raw: Raw,
    fields: dict[str, Raw],
    struct: mi.StructType,
    path: str,
    at: Location,
    unknown: list[tuple[Location, Raw]],
) -> Raw:
    known = _fields(struct)
    out: dict[str, Raw] = {}
    extra: dict[str, Any] = {}
    changed = False
    for key, value in fields.items():
        field = known.get(key)
        if field is not None:
            new = _capture(value, field.type, f"{path}.{key}", (*at, field.name), unknown)
            changed = changed or new is not value
            out[key] = new
        elif key == struct.tag_field:
            out[key] = value
        else:
            extra[key] = json_decoder(Any).decode(value)
    if extra and _EXTRAS in known:
        given = json_decoder(Any).decode(out[_EXTRAS]) if _EXTRAS in out else None
        out[_EXTRAS] = Raw(_ENCODE(_merge_extras(extra, given, path)))
        changed = True
    return Raw(_ENCODE(out)) if changed else raw


def _rebuild_values(
    raw: Raw,
    fields: dict[str, Raw],
    info: mi.Type,
    path: str,
    at: Location,
    unknown: list[tuple[Location, Raw]],
) -> Raw:
    new = {
        key: _capture(value, info, f"{path}[...]", (*at, key), unknown)
        for key, value in fields.items()
    }
    if all(new[key] is value for key, value in fields.items()):
        return raw
    return Raw(_ENCODE(new))


# -- Python values --------------------------------------------------------------


def prepare_builtins(obj: Any, type_: Any, path: str = "$") -> Any:
    """Make decoded values ready for ``msgspec.convert(obj, type_)``.

    Unknown fields move under ``extras``; text at a ``Raw`` position must be
    JSON and becomes :class:`msgspec.Raw`; values are never dropped.
    """
    return _prepare(obj, type_info(type_), path)


def _prepare(obj: Any, info: mi.Type, path: str) -> Any:
    if isinstance(info, mi.RawType) or (
        isinstance(info, mi.UnionType) and any(isinstance(t, mi.RawType) for t in info.types)
    ):
        return _to_raw(obj, path)
    if isinstance(obj, dict):
        struct = _struct_for(info, obj)
        if struct is not None:
            return _prepare_struct(obj, struct, path)
        if isinstance(info, mi.DictType):
            return {k: _prepare(v, info.value_type, f"{path}[...]") for k, v in obj.items()}
        return obj
    if isinstance(obj, list):
        item = _sequence_item(info)
        if item is None:
            return obj
        return [_prepare(value, item, f"{path}[{i}]") for i, value in enumerate(obj)]
    return obj


def _prepare_struct(obj: dict[str, Any], struct: mi.StructType, path: str) -> dict[str, Any]:
    known = _fields(struct)
    out: dict[str, Any] = {}
    unknown: dict[str, Any] = {}
    for key, value in obj.items():
        field = known.get(key)
        if field is not None:
            out[key] = _prepare(value, field.type, f"{path}.{key}")
        elif key == struct.tag_field:
            out[key] = value
        else:
            unknown[key] = value
    if unknown and _EXTRAS in known:
        out[_EXTRAS] = _merge_extras(unknown, out.get(_EXTRAS), path)
    elif unknown:
        out.update(unknown)  # no home for them: convert reports the field
    return out


def _to_raw(value: Any, path: str) -> Any:
    if isinstance(value, Raw):
        return value
    if isinstance(value, str):
        try:
            return json_decoder(Raw).decode(value.encode())
        except msgspec.DecodeError:
            raise ValidationError("must be JSON text", path) from None
    if isinstance(value, dict | list):
        try:
            return Raw(_ENCODE(value))
        except (TypeError, ValueError, OverflowError):
            raise ValidationError("must hold only JSON values", path) from None
    return value
