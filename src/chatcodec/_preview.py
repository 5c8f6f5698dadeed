r"""Incremental previews of JSON text that is still arriving. No I/O.

Strategy: parse only the text that is new since the last preview and build the
value as it goes, so that a preview costs O(new text + open path), not a parse
of everything so far.  The parser keeps

- a stack of the containers still open (real ``dict`` and ``list`` objects,
  each already attached to its parent) and, per open object, its pending key;
- the string still arriving, decoded up to its last complete character;
- ``carry``: raw text at the end that cannot be judged yet (a number or
  literal that may go on, a ``\`` escape or a surrogate pair cut in two); it
  is put back in front of the next text.

Text is tokenized with compiled regular expressions, so runs of string
characters (escapes included) and whitespace are skipped in C, not character
by character.  A value that is complete never changes again; a preview copies
only the containers still open (shallow copies, from the innermost out) and
puts the string still arriving in the innermost one.

A string still arriving is kept whole, and grows in place while no earlier
preview holds it: a preview costs the new text plus, when an earlier preview
is still alive, one copy of that string (the preview hands out a new ``str``
of it each time; a caller that drops each preview before the next pays
nothing more than the new text).

The parser never decides whether the whole text is valid JSON: once the text
can no longer be JSON it stops where it was, and previews keep showing the
value of the longest prefix that could be.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import msgspec

from ._frozen import FrozenMap

__all__ = ["PartialJSON"]

# States: what the parser expects next.
_VALUE = 0  # a value (top level, after ":", after "," in an array)
_ARRAY_FIRST = 1  # a value or "]" (just after "[")
_OBJECT_FIRST = 2  # a key or "}" (just after "{")
_KEY = 3  # a key (after "," in an object)
_COLON = 4  # ":" after a key
_AFTER = 5  # "," or the closer, after a value in a container
_END = 6  # nothing but whitespace: the top-level value is complete
_KEY_STRING = 7  # inside a string that is a key
_STRING = 8  # inside a string that is a value (in a string: state >= _KEY_STRING)

# A run of string characters and complete escapes; a high-surrogate escape only
# with its low half.  Raw surrogates are left to the slow path.
_SEGMENT = re.compile(
    r'(?:[^"\\\x00-\x1f\ud800-\udfff]+'
    r'|\\["\\/bfnrt]'
    r"|\\u(?:[dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2}"
    r"|(?![dD][89a-fA-F])[0-9a-fA-F]{4}))*"
).match
# The patterns matched with ``.end()`` straight away end in ``*``: they always match.
_WHITESPACE = re.compile(r"[ \t\n\r]*").match
_NUMBER_CHARS = re.compile(r"[-+.0-9eE]*").match
_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?").fullmatch
_WORD = re.compile(r"[a-z]*").match
_LITERALS: Mapping[str, Any] = FrozenMap({"true": True, "false": False, "null": None})
_STRING_BODY = msgspec.json.Decoder(str)
_NOTHING: Any = object()  # no top-level value yet
# ``carry`` once the text can no longer be JSON: the state stays as it was there.
_BROKEN = "(the text can no longer be JSON)"


class PartialJSON:
    """The value of a JSON text so far, fed in pieces; see the module docstring.

    ``preview(fragments)`` parses the fragments not seen before and returns the
    value so far: a string still arriving up to its last complete character,
    no key, number or literal still arriving, ``None`` if there is nothing to
    show.  The returned object and the containers still open in it are new on
    every call; containers already complete are shared between calls.
    """

    __slots__ = ("carry", "keys", "root", "seen", "stack", "state", "string")

    def __init__(self) -> None:
        self.seen = 0  # fragments parsed so far
        self.state = _VALUE
        self.stack: list[Any] = []  # the open containers, outermost first
        self.keys: list[Any] = []  # per open container: its pending key (None in a list)
        self.root: Any = _NOTHING
        self.string = ""  # the string still arriving, decoded so far
        self.carry = ""

    def preview(self, fragments: list[str]) -> Any:
        """Parse the fragments not seen yet; return the value so far."""
        seen = self.seen
        count = len(fragments)
        if seen < count:
            text = fragments[seen] if seen + 1 == count else "".join(fragments[seen:])
            self.seen = count
            # The usual fragment: more of a string, no quote, escape, control
            # character or surrogate in it (isprintable() is False for the last
            # two, and for a few other characters, which only means that the
            # general path takes them).
            if (
                self.state >= _KEY_STRING
                and not self.carry
                and '"' not in text
                and "\\" not in text
                and text.isprintable()
            ):
                # Taken out of the parser first: held only by this local, the
                # string grows in place (when no earlier preview still holds it).
                string = self.string
                self.string = ""
                string += text
                self.string = string
            else:
                self.feed(text)
        stack = self.stack
        if not stack:
            if self.state == _STRING:
                return self.string
            root = self.root
            if root is _NOTHING:
                return None
            return root.copy() if type(root) is dict or type(root) is list else root
        # Copy the open path, innermost first; closed children are shared.
        depth = len(stack) - 1
        child = stack[depth].copy()
        if self.state == _STRING:
            if type(child) is dict:
                child[self.keys[depth]] = self.string
            else:
                child.append(self.string)
        if depth:
            keys = self.keys
            while depth:
                depth -= 1
                parent = stack[depth].copy()
                if type(parent) is dict:
                    parent[keys[depth]] = child
                else:
                    parent[-1] = child
                child = parent
        return child

    def feed(self, text: str) -> None:
        """Parse more text: O(len(text)), whatever came before."""
        if self.carry:
            if self.carry is _BROKEN:
                return
            text = self.carry + text
            self.carry = ""
        state = self.state
        stack = self.stack
        keys = self.keys
        string = self.string
        self.string = ""  # held by the local alone, the string grows in place
        pos = 0
        end = len(text)
        value: Any
        while pos < end:
            if state >= _KEY_STRING:
                stop = _SEGMENT(text, pos).end()  # type: ignore[union-attr]
                if stop > pos:
                    piece = text[pos:stop]
                    if "\\" in piece:
                        piece = _STRING_BODY.decode('"' + piece + '"')
                    string += piece
                    pos = stop
                    if pos == end:
                        break
                char = text[pos]
                if char == '"':
                    value = string
                    string = ""
                    pos += 1
                    if state == _KEY_STRING:
                        keys[-1] = value
                        state = _COLON
                        continue
                elif char == "\\":
                    # Not a complete escape: if it may still become one (the
                    # longest, a surrogate pair cut before its last digit, is
                    # 11 characters), wait for the rest; an invalid one is
                    # found when more text arrives, and shows the same meanwhile.
                    if end - pos < 12:
                        self.carry = text[pos:]
                        break
                    self.carry = _BROKEN
                    break
                elif "\ud800" <= char <= "\udbff":
                    # A character outside the BMP sent as two raw surrogates
                    # (split between fragments): join the halves.
                    if pos + 1 == end:
                        self.carry = text[pos:]
                        break
                    low = text[pos + 1]
                    if "\udc00" <= low <= "\udfff":
                        pair = char + low
                        string += pair.encode("utf-16", "surrogatepass").decode("utf-16")
                        pos += 2
                    else:
                        string += char
                        pos += 1
                    continue
                elif "\udc00" <= char <= "\udfff":
                    string += char
                    pos += 1
                    continue
                else:  # a control character
                    self.carry = _BROKEN
                    break
            else:
                char = text[pos]
                if char in " \t\n\r":
                    pos = _WHITESPACE(text, pos).end()  # type: ignore[union-attr]
                    continue
                if state == _AFTER:
                    top = stack[-1]
                    if char == ",":
                        state = _KEY if type(top) is dict else _VALUE
                        pos += 1
                    elif char == ("}" if type(top) is dict else "]"):
                        stack.pop()
                        keys.pop()
                        state = _AFTER if stack else _END
                        pos += 1
                    else:
                        self.carry = _BROKEN
                        break
                    continue
                if state == _COLON:
                    if char != ":":
                        self.carry = _BROKEN
                        break
                    state = _VALUE
                    pos += 1
                    continue
                if state in (_OBJECT_FIRST, _KEY):
                    if char == '"':
                        state = _KEY_STRING
                    elif char == "}" and state == _OBJECT_FIRST:
                        stack.pop()
                        keys.pop()
                        state = _AFTER if stack else _END
                    else:
                        self.carry = _BROKEN
                        break
                    pos += 1
                    continue
                if state == _END:
                    self.carry = _BROKEN
                    break
                # _VALUE or _ARRAY_FIRST: a value (or "]" just after "[").
                if char == '"':
                    state = _STRING
                    pos += 1
                    continue
                if char == "{" or char == "[":
                    value = {} if char == "{" else []
                    if stack:
                        top = stack[-1]
                        if type(top) is dict:
                            top[keys[-1]] = value
                        else:
                            top.append(value)
                    else:
                        self.root = value
                    stack.append(value)
                    keys.append(None)
                    state = _OBJECT_FIRST if char == "{" else _ARRAY_FIRST
                    pos += 1
                    continue
                if char == "]" and state == _ARRAY_FIRST:
                    stack.pop()
                    keys.pop()
                    state = _AFTER if stack else _END
                    pos += 1
                    continue
                if char in "-0123456789":
                    stop = _NUMBER_CHARS(text, pos).end()  # type: ignore[union-attr]
                    if stop == end:
                        self.carry = text[pos:]  # the number may go on
                        break
                    token = _NUMBER(text, pos, stop)
                    if token is None:
                        self.carry = _BROKEN
                        break
                    try:
                        value = float(token[0]) if token.lastindex else int(token[0])
                    except ValueError:  # more digits than int() takes
                        self.carry = _BROKEN
                        break
                    pos = stop
                else:
                    stop = _WORD(text, pos).end()  # type: ignore[union-attr]
                    if stop == end and stop > pos:
                        self.carry = text[pos:]  # the literal may go on
                        break
                    word = text[pos:stop]
                    if word not in _LITERALS:
                        self.carry = _BROKEN
                        break
                    value = _LITERALS[word]
                    pos = stop
            # A complete value (string, number or literal): put it in place.
            if stack:
                top = stack[-1]
                if type(top) is dict:
                    top[keys[-1]] = value
                else:
                    top.append(value)
                state = _AFTER
            else:
                self.root = value
                state = _END
        self.state = state
        self.string = string
