from __future__ import annotations

import msgspec

import chatcodec as cc
from chatcodec._record import shape


class TestShape:
    """shape() describes values by type and size only."""

    def test_shapes(self) -> None:
        assert shape("secret") == "<6 chars>"
        assert shape(msgspec.Raw(b"{}")) == "<2 bytes>"
        assert shape(b"abc") == "<3 bytes>"
        assert shape(cc.Role.USER) == "'user'"
        assert shape(True) == "True"
        assert shape(3) == "3"
        assert shape({"a": 1}) == "<1 keys>"
        assert shape(("a", "bb")) == "(<1 chars>, <2 chars>)"
        assert shape(("a",)) == "(<1 chars>,)"
        assert shape(object()) == "<object>"

    def test_repr_skips_defaults(self) -> None:
        assert repr(cc.ToolDefinition("f")) == "ToolDefinition(name=<1 chars>)"
        assert repr(cc.ToolDefinition("f", strict=False)) == (
            "ToolDefinition(name=<1 chars>, strict=False)"
        )
        assert repr(cc.Usage()) == "Usage()"


class TestRichRepr:
    """rich reads __rich_repr__, which must hide content as __repr__ does."""

    def test_rich_repr_hides_content(self) -> None:
        message = cc.user("SECRET", id="ID")
        shown = list(message.__rich_repr__())
        assert [name for name, _ in shown] == ["content", "id"]
        assert "SECRET" not in repr(shown)
        assert "ID'" not in repr(shown)
        assert repr(shown[0][1]) == "<6 chars>"
