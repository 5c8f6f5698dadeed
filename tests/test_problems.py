from __future__ import annotations

import msgspec

import chatcodec as cc


class TestProblem:
    """Problems are values that print as severity, rule and place."""

    def test_str(self) -> None:
        assert str(cc.Problem("$[1].content", "must not be empty")) == (
            "error: must not be empty - at `$[1].content`"
        )
        assert str(cc.Problem("$.role", "role was not lowercase", "warning", line=3)) == (
            "warning: role was not lowercase - at line 3, `$.role`"
        )

    def test_value_semantics(self) -> None:
        a = cc.Problem("$", "rule")
        assert a == cc.Problem("$", "rule", "error")
        assert hash(a) == hash(cc.Problem("$", "rule"))
        assert msgspec.json.decode(msgspec.json.encode(a), type=cc.Problem) == a
        assert msgspec.json.encode(a) == b'{"path":"$","rule":"rule"}'
