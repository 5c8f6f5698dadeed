from __future__ import annotations

from pathlib import Path

import msgspec
import pytest

import chatcodec as cc
from chatcodec import providers
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


DATA = Path(__file__).parent / "data" / "providers"
CURATED = sorted(
    (family, kind, path)
    for family in providers.NAMES
    for kind in ("request", "response")
    for path in (DATA / family / kind).glob("*.json")
)


class TestHash:
    """Every record hashes, equal records alike, whatever its extras hold."""

    @pytest.mark.parametrize(
        ("family", "kind", "path"), CURATED, ids=lambda v: getattr(v, "stem", v)
    )
    def test_every_curated_body(self, family: str, kind: str, path: Path) -> None:
        codec = providers.get(family)
        read = codec.decode_request if kind == "request" else codec.decode_response
        try:
            first, second = read(path.read_bytes()), read(path.read_bytes())
        except cc.ChatCodecError:
            pytest.skip("a body its codec refuses: nothing to hash")
        assert first == second
        assert hash(first) == hash(second)
        assert len({first, second}) == 1

    def test_extras_in_another_order_hash_alike(self) -> None:
        a = cc.UserMessage("x", extras={"p": {"a": 1, "b": [1, {"c": None}]}})
        b = cc.UserMessage("x", extras={"p": {"b": [1, {"c": None}], "a": 1}})
        assert a == b
        assert hash(a) == hash(b)

    @pytest.mark.parametrize(
        "other",
        [
            cc.UserMessage("y", extras={"p": {"a": 1}}),
            cc.UserMessage("x", extras={"p": {"a": 2}}),
            cc.UserMessage("x", extras={"q": {"a": 1}}),
        ],
    )
    def test_a_difference_is_seen(self, other: cc.UserMessage) -> None:
        mine = cc.UserMessage("x", extras={"p": {"a": 1}})
        assert mine != other
        assert len({mine, other}) == 2

    def test_raw_fields_hash_as_their_bytes(self) -> None:
        part = cc.OpaquePart("anthropic", msgspec.Raw(b'{"type":"x"}'))
        same = cc.OpaquePart("anthropic", msgspec.Raw(b'{"type":"x"}'))
        assert hash(part) == hash(same)
        assert hash(cc.Response(extras={"openai": {"created": 1}})) == hash(
            cc.Response(extras={"openai": {"created": 1}})
        )
