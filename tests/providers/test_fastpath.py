"""The parts every typed fast path is written from (``providers/_fastpath.py``)."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from msgspec import UNSET, UnsetType

from chatcodec.providers._fastpath import Wire, carrier


class _Body(Wire, rename="camel"):
    model: str | UnsetType | None = UNSET
    create_time: Any = UNSET
    prompt_feedback: Any = UNSET
    usage_metadata: dict[str, Any] | UnsetType | None = UNSET


_carry = carrier(_Body, "create_time", "prompt_feedback", nulls=("model", "usage_metadata"))
_decode = msgspec.json.Decoder(_Body).decode


def _expected(wire: dict[str, Any]) -> dict[str, Any]:
    """What the general paths keep, key by key in the order they read them."""
    own: dict[str, Any] = {k: wire[k] for k in ("createTime", "promptFeedback") if k in wire}
    own.update(
        {key: None for key in ("model", "usageMetadata") if key in wire and wire[key] is None}
    )
    return own


class TestCarrier:
    """``carrier`` copies what the wire sent, by wire name, and null where it must."""

    def test_sent_and_null(self) -> None:
        own: dict[str, Any] = {}
        _carry(_decode(b'{"model":null,"createTime":null,"promptFeedback":{"x":1}}'), own)
        assert own == {"createTime": None, "promptFeedback": {"x": 1}, "model": None}
        assert list(own) == ["createTime", "promptFeedback", "model"]

    def test_absent_and_values_are_not_copied(self) -> None:
        own: dict[str, Any] = {"kept": 1}
        _carry(_decode(b'{"model":"m","usageMetadata":{}}'), own)
        assert own == {"kept": 1}

    @settings(deadline=None)  # a shared machine: no timing in tests
    @given(
        st.dictionaries(
            st.sampled_from(["model", "createTime", "promptFeedback", "usageMetadata"]),
            st.none() | st.integers() | st.text(),
        )
    )
    def test_any_body(self, wire: dict[str, Any]) -> None:
        if type(wire.get("model")) is int or type(wire.get("usageMetadata")) in (int, str):
            return  # a type the Struct refuses: the fast path never gets there
        own: dict[str, Any] = {}
        _carry(_decode(msgspec.json.encode(wire)), own)
        assert own == _expected(wire)
        assert list(own) == list(_expected(wire))

    def test_unknown_field(self) -> None:
        with pytest.raises(KeyError):
            carrier(_Body, "created")

    def test_no_field(self) -> None:
        with pytest.raises(ValueError, match="at least one field"):
            carrier(_Body)
