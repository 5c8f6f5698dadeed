from __future__ import annotations

import pytest

import chatcodec as cc


class TestRole:
    """Roles are lowercase on the wire, parse in any case and have stable codes."""

    def test_wire_names(self) -> None:
        assert [r.value for r in cc.Role] == ["system", "developer", "user", "assistant", "tool"]
        assert cc.encode(cc.user("x")).startswith(b'{"role":"user"')

    def test_codes_are_stable_and_without_gaps(self) -> None:
        assert [r.code for r in cc.Role] == [0, 1, 2, 3, 4]
        assert all(cc.Role.from_code(r.code) is r for r in cc.Role)

    @pytest.mark.parametrize("code", [-1, 5, True, "1", None])
    def test_unknown_codes(self, code: object) -> None:
        with pytest.raises(cc.ValidationError, match="role code"):
            cc.Role.from_code(code)  # type: ignore[arg-type]

    @pytest.mark.parametrize("name", ["user", "USER", " User ", "uSeR"])
    def test_parse_ignores_case(self, name: str) -> None:
        assert cc.Role.parse(name) is cc.Role.USER

    @pytest.mark.parametrize("name", ["", "usr", "hacker", "user\x00", None, 3])
    def test_parse_refuses_the_rest(self, name: object) -> None:
        with pytest.raises(cc.ValidationError) as info:
            cc.Role.parse(name)  # type: ignore[arg-type]
        assert info.value.rule == "role must be one of system, developer, user, assistant, tool"
        assert isinstance(info.value, ValueError)
