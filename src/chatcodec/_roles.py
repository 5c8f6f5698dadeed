"""Roles: who speaks a message."""

from __future__ import annotations

import enum
from collections.abc import Mapping

from ._errors import ValidationError
from ._frozen import FrozenMap

__all__ = ["Role"]


class Role(enum.StrEnum):
    """Who speaks a message.

    Members are their lowercase wire names (``Role.USER == "user"``) and carry a
    stable integer ``code`` (0 to 4, no gaps, never reused).

    Examples
    --------
    >>> Role.parse("Assistant")
    <Role.ASSISTANT: 'assistant'>
    >>> Role.ASSISTANT.code
    3
    >>> Role.from_code(3) is Role.ASSISTANT
    True
    """

    SYSTEM = "system"
    DEVELOPER = "developer"
    USER = "user"
    ASSISTANT = "assistant"
    TOOL = "tool"

    @property
    def code(self) -> int:
        """The stable integer code of this role."""
        return _CODES[self]

    @classmethod
    def from_code(cls, code: int) -> Role:
        """Return the role whose :attr:`code` is ``code``.

        Raises
        ------
        ValidationError
            If no role has that code.
        """
        if type(code) is int and 0 <= code < len(_BY_CODE):
            return _BY_CODE[code]
        raise ValidationError(f"role code must be an integer in 0..{len(_BY_CODE) - 1}")

    @classmethod
    def parse(cls, name: str) -> Role:
        """Return the role named ``name``, ignoring case and surrounding blanks.

        Raises
        ------
        ValidationError
            If ``name`` names no role; the message lists the allowed names and
            does not repeat the input.
        """
        try:
            return _BY_NAME[name.strip().lower()]
        except (KeyError, AttributeError):
            raise ValidationError(f"role must be one of {_ALLOWED}", "$.role") from None


_BY_CODE: tuple[Role, ...] = tuple(Role)
_CODES: Mapping[Role, int] = FrozenMap({role: code for code, role in enumerate(_BY_CODE)})
_BY_NAME: Mapping[str, Role] = FrozenMap({role.value: role for role in Role})
_ALLOWED = ", ".join(role.value for role in Role)
