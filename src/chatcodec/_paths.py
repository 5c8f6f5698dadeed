r"""JSON paths that name the input's own object keys, written so that no key can forge a line.

A path in an error, a loss or a problem (``$.messages[2].extras.openai.logprobs``)
is made of the canonical form's field names, indexes and, inside an object the
input wrote (a record's extras, a tool's JSON schema, a settings group, an
envelope), that object's keys. Those keys are data: one may hold a newline and a
backtick that would end the message's ``- at `$...``` and begin a forged line
of a log, or be as long as the body. :func:`key_path` is the one way a path
writes such a key:

- a plain identifier (an ASCII letter or ``_``, then ASCII letters, digits and
  ``_``) of at most :data:`MAX_KEY` characters: ``.key``;
- any other key in brackets, as a JSON string: ``["x-api key"]``. Every
  character that is not printable (control characters, line and paragraph
  separators, format characters such as bidi overrides, lone surrogates) is a
  JSON escape (``\n``, ``\u2028``), and so are ``"``, ``\`` and the backtick
  (``\u0060``): what is between the brackets is one JSON string on one line;
- a key longer than :data:`MAX_KEY` characters is cut to its first ones, and
  ``...`` after the closing quote says so: ``["aaaa...aaaa"...]``.

Names chatcodec itself puts in a path (field names, a family's name) are
written as they are.
"""

from __future__ import annotations

import re

from ._frozen import FrozenMap

__all__ = ["MAX_KEY", "key_path"]

MAX_KEY = 64
"""The most characters of a key a path shows; a longer key is cut."""

_PLAIN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_ESCAPES = FrozenMap(
    {
        '"': '\\"',
        "\\": "\\\\",
        "`": "\\u0060",
        "\n": "\\n",
        "\r": "\\r",
        "\t": "\\t",
        "\b": "\\b",
        "\f": "\\f",
    }
)


def _escape(char: str) -> str:
    escaped = _ESCAPES.get(char)
    if escaped is not None:
        return escaped
    if char.isprintable():
        return char
    code = ord(char)
    if code > 0xFFFF:  # outside the BMP: a surrogate pair, as JSON writes it
        code -= 0x10000
        return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"
    return f"\\u{code:04x}"


def key_path(key: object) -> str:
    r"""The step of a JSON path to the member ``key`` of an object the input wrote.

    Examples
    --------
    >>> key_path("logprobs"), key_path("x-api-key"), key_path("a\n- at `$.b`")
    ('.logprobs', '["x-api-key"]', '["a\\n- at \\u0060$.b\\u0060"]')
    >>> key_path("k" * 100) == '["' + "k" * 64 + '"...]'
    True
    """
    # Object keys are strings; a msgpack map's may be of any type.
    text = key if type(key) is str else str(key)
    if len(text) <= MAX_KEY and _PLAIN.fullmatch(text):
        return "." + text
    cut = text[:MAX_KEY]
    inner = "".join(map(_escape, cut))
    return f'["{inner}"...]' if len(text) > MAX_KEY else f'["{inner}"]'
