from __future__ import annotations

import msgspec
import pytest

import chatcodec as cc


class TestUsage:
    """Usage counts are non-negative and add up."""

    def test_total(self) -> None:
        assert cc.Usage(10, 5).total == 15
        assert cc.Usage(10, 5, total_tokens=16).total == 16

    def test_sum(self) -> None:
        a = cc.Usage(10, 5, cached_tokens=2)
        b = cc.Usage(1, 1, reasoning_tokens=3)
        assert a + b == cc.Usage(11, 6, 17, 2, 3)
        assert cc.Usage(1, 1) + cc.Usage(1, 1) == cc.Usage(2, 2, 4)

    def test_add_other_types(self) -> None:
        with pytest.raises(TypeError):
            cc.Usage() + 1  # type: ignore[operator]

    @pytest.mark.parametrize("field", ["prompt_tokens", "completion_tokens", "cached_tokens"])
    def test_negative_counts(self, field: str) -> None:
        with pytest.raises(cc.ValidationError) as info:
            cc.Usage(**{field: -1})  # type: ignore[arg-type]
        assert info.value.path == f"$.{field}"
        with pytest.raises(cc.ValidationError) as info:
            cc.decode(msgspec.json.encode({field: -1}), type=cc.Usage)
        assert info.value.path == f"$.{field}"

    def test_finish_reasons(self) -> None:
        assert [r.value for r in cc.FinishReason] == [
            "stop",
            "length",
            "tool_calls",
            "content_filter",
            "error",
            "other",
        ]
