from __future__ import annotations

import itertools
import json
import random
import re
from types import ModuleType
from typing import Any

import msgspec
import pytest
from hypothesis import given
from hypothesis import strategies as st

import chatcodec as cc
from chatcodec import ToolCallDelta as D
from chatcodec._eventstream import EventStreamReader, encode_message
from strategies import names

jiter: ModuleType | None
try:
    import jiter
except ImportError:  # a dev dependency (through the anthropic SDK); the oracle tests need it
    jiter = None

Call = tuple[str | None, str | None, str]  # id, name, arguments text


def run(deltas: list[D]) -> list[Call]:
    """Feed every delta; the calls, which must all be complete, in order."""
    good, bad = _finish(deltas)
    assert bad == ()
    return [(c.id, c.name, bytes(c.arguments).decode()) for c in good]


class TestOpenAIShape:
    """id and name on the first fragment, then index-only argument pieces."""

    def test_fragments(self) -> None:
        deltas = [D(0, "c1", "f", ""), D(0, None, None, '{"a"'), D(0, None, None, ": 1}")]
        assert run(deltas) == [("c1", "f", '{"a": 1}')]

    def test_parallel_calls_interleaved(self) -> None:
        deltas = [
            D(0, "c1", "f", '{"a'),
            D(1, "c2", "g", '{"b'),
            D(0, arguments_delta='": 1}'),
            D(1, arguments_delta='": 2}'),
        ]
        assert run(deltas) == [("c1", "f", '{"a": 1}'), ("c2", "g", '{"b": 2}')]

    @pytest.mark.parametrize("indexes", [(1, 2), (0, 5), (7, 3)])
    def test_indexes_starting_at_one_or_sparse(self, indexes: tuple[int, int]) -> None:
        i, j = indexes
        deltas = [
            D(i, "c1", "f", "{"),
            D(j, "c2", "g", "{"),
            D(i, arguments_delta="}"),
            D(j, arguments_delta="}"),
        ]
        assert run(deltas) == [("c1", "f", "{}"), ("c2", "g", "{}")]

    def test_index_zero_is_an_index_and_text_zero_is_zero(self) -> None:
        deltas = [D(0, "c1", "f", '{"a":'), D("0", None, None, "1}")]  # type: ignore[arg-type]
        assert run(deltas) == [("c1", "f", '{"a":1}')]

    def test_same_index_several_times_in_one_chunk(self) -> None:
        deltas = [
            D(0, "c1", "f", "{"),
            D(0, arguments_delta='"a"'),
            D(0, arguments_delta=":1"),
            D(0, arguments_delta="}"),
        ]
        assert run(deltas) == [("c1", "f", '{"a":1}')]

    def test_reused_index_with_a_new_id_is_a_new_call(self) -> None:
        deltas = [D(0, "c1", "f", "{}"), D(0, "c2", "g", "{"), D(0, arguments_delta="}")]
        assert run(deltas) == [("c1", "f", "{}"), ("c2", "g", "{}")]

    def test_id_arriving_after_the_first_fragment(self) -> None:
        deltas = [D(0, None, "f", "{"), D(0, "c1", None, "}")]
        assert run(deltas) == [("c1", "f", "{}")]

    def test_empty_fragments(self) -> None:
        acc = cc.ToolCallAccumulator()
        events = [
            acc.feed(d)
            for d in (D(0, "c1", "f", ""), D(0, arguments_delta=""), D(0, arguments_delta="{}"))
        ]
        assert events == [
            [cc.ToolCallStarted(0, "c1", "f")],
            [],
            [cc.ToolCallArgumentsDelta(0, "{}")],
        ]


class TestWithoutIndex:
    """Mistral, Groq, Gemini's OpenAI endpoint: whole calls, no index."""

    def test_whole_calls_per_chunk(self) -> None:
        deltas = [D(None, "c1", "f", '{"a":1}'), D(None, "c2", "f", '{"a":2}')]
        assert run(deltas) == [("c1", "f", '{"a":1}'), ("c2", "f", '{"a":2}')]

    def test_keyed_by_id(self) -> None:
        deltas = [
            D(None, "c1", "f", '{"a"'),
            D(None, "c2", "g", "{"),
            D(None, "c1", None, ":1}"),
            D(None, "c2", None, "}"),
        ]
        assert run(deltas) == [("c1", "f", '{"a":1}'), ("c2", "g", "{}")]

    def test_a_new_name_starts_a_new_call(self) -> None:
        deltas = [D(None, "", "f", "{}"), D(None, "", "g", "{}")]  # empty ids, as Gemini sends
        result = run(deltas)
        assert [(c[1], c[2]) for c in result] == [("f", "{}"), ("g", "{}")]
        assert result[0][0] != result[1][0]

    def test_bare_fragments_go_to_the_latest_call(self) -> None:
        deltas = [D(None, None, "f", '{"a'), D(None, None, None, '":1}')]
        assert [(c[1], c[2]) for c in run(deltas)] == [("f", '{"a":1}')]

    def test_name_then_id(self) -> None:
        deltas = [D(None, None, "f", "{"), D(None, "c1", None, "}")]
        assert run(deltas) == [("c1", "f", "{}")]


class TestEndStates:
    """Each call ends complete or as an InvalidToolCall that keeps its text."""

    @pytest.mark.parametrize(
        ("text", "error"),
        [
            ('{"a": "x', "arguments are truncated"),
            ('{"a": ', "arguments are truncated"),
            ('{"a" 1}', "arguments are not valid JSON"),
            ("Go version 1.0 release date", "arguments are not valid JSON"),
            ("[1, 2]", "arguments are valid JSON but not an object"),
            ("", "arguments are empty"),
        ],
    )
    def test_invalid(self, text: str, error: str) -> None:
        acc = cc.ToolCallAccumulator()
        acc.feed(D(0, "c1", "f", text))
        good, (bad,) = acc.finish()
        assert good == ()
        assert (bad.id, bad.name, bad.arguments, bad.error) == ("c1", "f", text, error)

    def test_no_name(self) -> None:
        acc = cc.ToolCallAccumulator()
        acc.feed(D(0, "c1", None, "{}"))
        assert acc.finish().invalid_tool_calls[0].error == "tool call has no name"

    def test_never_closed_early(self) -> None:
        acc = cc.ToolCallAccumulator()
        events = acc.feed(D(0, "c1", "f", "1")) + acc.feed(D(0, arguments_delta="2"))
        assert all(not isinstance(e, cc.StreamedToolCalls) for e in events)
        (bad,) = acc.finish().invalid_tool_calls
        assert bad.arguments == "12"  # all of it, not the "1" that parsed first

    def test_character_split_across_fragments(self) -> None:
        emoji = "\U0001f600"
        high, low = emoji.encode("utf-16-le", "surrogatepass")[:2], emoji.encode("utf-16-le")[2:]
        first = '{"e": "' + high.decode("utf-16-le", "surrogatepass")
        second = low.decode("utf-16-le", "surrogatepass") + 'é"}'
        assert run([D(0, "c1", "f", first), D(0, arguments_delta=second)]) == [
            ("c1", "f", '{"e": "' + emoji + 'é"}')
        ]

    def test_feeding_after_finish(self) -> None:
        acc = cc.ToolCallAccumulator()
        acc.finish()
        with pytest.raises(cc.StreamError, match="fed after finish"):
            acc.feed(D(0, "c1", "f", "{}"))

    def test_derived_ids_are_stable(self) -> None:
        def derived() -> str | None:
            acc = cc.ToolCallAccumulator()
            acc.feed(D(None, None, "f", '{"a":1}'))
            return acc.finish().tool_calls[0].id

        assert derived() == derived()
        assert derived().startswith("call_")  # type: ignore[union-attr]


@st.composite
def call_sets(draw: st.DrawFn) -> list[tuple[str, str, str]]:
    count = draw(st.integers(1, 4))
    out = []
    for i in range(count):
        obj = draw(
            st.dictionaries(st.text(max_size=6), st.text(max_size=8) | st.integers(), max_size=3)
        )
        out.append((f"call_{i}", draw(names), json.dumps(obj, ensure_ascii=False)))
    return out


class TestProperties:
    """Any fragmentation of any set of calls comes back together."""

    @given(calls=call_sets(), seed=st.integers(0, 2**32), indexed=st.booleans())
    def test_reassembles(self, calls: list[tuple[str, str, str]], seed: int, indexed: bool) -> None:
        rng = random.Random(seed)
        streams = []
        for slot, (call_id, name, text) in enumerate(calls):
            cuts = sorted(rng.sample(range(len(text) + 1), min(len(text), rng.randint(0, 6))))
            pieces = [text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)], strict=True)]
            index = slot if indexed else None
            first = [D(index, call_id, name, pieces[0])]
            rest = [D(index, None if indexed else call_id, None, p) for p in pieces[1:]]
            streams.append(first + rest)
        deltas: list[D] = []
        if indexed:  # interleave the calls, each in its own order
            while any(streams):
                deltas.append(rng.choice([s for s in streams if s]).pop(0))
        else:  # without an index, calls arrive one after another
            deltas = [d for s in streams for d in s]
        good, bad = _finish(deltas)
        assert bad == ()
        started = list(dict.fromkeys(d.id for d in deltas if d.id))  # in order of first fragment
        expected = sorted(calls, key=lambda c: started.index(c[0]))
        assert [(c.id, c.name, bytes(c.arguments).decode()) for c in good] == expected


def _finish(deltas: list[D]) -> cc.StreamedToolCalls:
    acc = cc.ToolCallAccumulator()
    for delta in deltas:
        acc.feed(delta)
    return acc.finish()


def consistent(seen: Any, final: Any) -> bool:
    """A preview shows part of the final value and nothing that is not in it."""
    if isinstance(seen, dict):
        return isinstance(final, dict) and all(
            k in final and consistent(v, final[k]) for k, v in seen.items()
        )
    if isinstance(seen, list):
        return (
            isinstance(final, list)
            and len(seen) <= len(final)
            and all(consistent(v, f) for v, f in zip(seen, final, strict=False))
        )
    if isinstance(seen, str):
        return isinstance(final, str) and final.startswith(seen)
    return bool(seen == final)


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=6),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3)
    ),
    max_leaves=10,
)


class TestPreview:
    """Previews show the arguments so far: partial strings, whole numbers and keys."""

    def test_needs_opting_in(self) -> None:
        acc = cc.ToolCallAccumulator()
        acc.feed(D(0, "c1", "f", "{"))
        with pytest.raises(cc.StreamError, match="preview=True"):
            acc.preview(0)

    @pytest.mark.parametrize("slot", [1, 2, -1, -2, "0", 0.0, None, True])
    def test_a_slot_no_call_has(self, slot: Any) -> None:
        """Slots count from the start: -1 is no slot (not the last call), nor is "0"."""
        acc = cc.ToolCallAccumulator(preview=True)
        acc.feed(D(0, "c1", "f", '{"a": 1'))
        with pytest.raises(cc.NotFoundError) as raised:
            acc.preview(slot)
        assert isinstance(raised.value, KeyError)
        assert raised.value.what == "tool call slot"
        assert "no tool call is in slot" in str(raised.value)
        assert acc.preview(0) == {}

    def test_no_slot_before_any_call(self) -> None:
        acc = cc.ToolCallAccumulator(preview=True)
        with pytest.raises(cc.NotFoundError):
            acc.preview(0)

    @pytest.mark.parametrize("limit", ["max_arguments", "max_tool_calls"])
    def test_after_a_limit_error(self, limit: str) -> None:
        """Past a limit every call is dropped: a preview names the limit, for any slot."""
        acc = cc.ToolCallAccumulator(preview=True, max_arguments=10, max_tool_calls=1)
        acc.feed(D(0, "c", "f", '{"a":'))
        assert acc.preview(0) == {}
        over = (
            D(0, None, None, '"xxxxxxxxxxxxxxxx')
            if limit == "max_arguments"
            else D(1, "d", "g", "{")
        )
        with pytest.raises(cc.StreamError) as fed:
            acc.feed(over)
        assert fed.value.limit == limit
        for slot in (0, 1, -1):
            with pytest.raises(cc.StreamError) as raised:
                acc.preview(slot)
            assert raised.value.limit == limit
            assert not isinstance(raised.value, IndexError)

    @pytest.mark.parametrize(
        ("text", "expected"),
        [
            ("", None),
            ("{", {}),
            ('{"ke', {}),
            ('{"key": ', {}),
            ('{"key": 12', {}),
            ('{"key": 12,', {"key": 12}),
            ('{"key": "val', {"key": "val"}),
            ('{"key": "a\\', {"key": "a"}),
            ('{"key": "a\\u00', {"key": "a"}),
            ('{"key": "a\\u00e9', {"key": "aé"}),
            ('{"a": [1, {"b": tr', {"a": [1, {}]}),
            ('{"a": [1, {"b": true}', {"a": [1, {"b": True}]}),
            ('{"a": 1}', {"a": 1}),
        ],
    )
    def test_prefixes(self, text: str, expected: Any) -> None:
        acc = cc.ToolCallAccumulator(preview=True)
        acc.feed(D(0, "c1", "f", text))
        assert acc.preview(0) == expected

    @given(
        value=st.dictionaries(st.text(max_size=4), json_values, max_size=4),
        ascii_only=st.booleans(),
    )
    def test_every_prefix_is_consistent(self, value: dict[str, Any], ascii_only: bool) -> None:
        text = json.dumps(value, ensure_ascii=ascii_only)
        acc = cc.ToolCallAccumulator(preview=True)
        acc.feed(D(0, "c1", "f", ""))
        for char in text:
            acc.feed(D(0, arguments_delta=char))
            seen = acc.preview(0)
            assert seen is None or consistent(seen, value)
        assert acc.preview(0) == value
        assert acc.finish().tool_calls[0].arguments_dict() == value


def previews(fragments: list[str]) -> list[Any]:
    """The preview after each fragment of one call's arguments."""
    acc = cc.ToolCallAccumulator(preview=True)
    acc.feed(D(0, "c1", "f", ""))
    out = []
    for text in fragments:
        acc.feed(D(0, arguments_delta=text))
        out.append(acc.preview(0))
    return out


class TestPreviewSplits:
    """Every token that can be cut between fragments is shown once it is whole."""

    @pytest.mark.parametrize(
        ("fragments", "expected"),
        [
            # a string value: shown up to its last complete character
            (['{"a": "xy', "z", '"}'], [{"a": "xy"}, {"a": "xyz"}, {"a": "xyz"}]),
            # a simple escape cut after its backslash
            (['{"a": "x\\', 'n"'], [{"a": "x"}, {"a": "x\n"}]),
            (['{"a": "x\\', "\\", '"'], [{"a": "x"}, {"a": "x\\"}, {"a": "x\\"}]),
            (['{"a": "x\\', '"y'], [{"a": "x"}, {"a": 'x"y'}]),
            # a \u escape cut at every point
            (['["\\u', "00", "e", "9!"], [[""], [""], [""], ["\u00e9!"]]),
            # a surrogate pair in escapes, cut between and inside its halves
            (['["a\\ud83d', '\\ude00"]'], [["a"], ["a\U0001f600"]]),
            (
                ['["a\\ud8', "3d\\", "u", "de0", "0b"],
                [["a"], ["a"], ["a"], ["a"], ["a\U0001f600b"]],
            ),
            # a character outside the BMP sent as two raw surrogates
            (['["a\ud83d', '\ude00b"]'], [["a"], ["a\U0001f600b"]]),
            # a key: left out until its value starts
            (['{"ke', 'y"', ": ", '"v'], [{}, {}, {}, {"key": "v"}]),
            # a number: left out until something ends it
            (
                ["[1", "2", ".5", "e3", ",", "-", "0 "],
                [[], [], [], [], [12500.0], [12500.0], [12500.0, 0]],
            ),
            # a literal likewise
            (['{"a": tr', "ue", "}"], [{}, {}, {"a": True}]),
            (["[nu", "ll ", "]"], [[], [None], [None]]),
            # containers: shown as soon as they open
            (
                ['{"a": [', "{", '"b": {}', "}]}"],
                [{"a": []}, {"a": [{}]}, {"a": [{"b": {}}]}, {"a": [{"b": {}}]}],
            ),
            # whitespace anywhere outside strings
            ([" \n", "{ ", '"a" ', ": ", " 1 ", "\t}"], [None, {}, {}, {}, {"a": 1}, {"a": 1}]),
            # top-level values other than objects
            (['"ab', 'c"'], ["ab", "abc"]),
            (["12", " "], [None, 12]),
        ],
    )
    def test_split(self, fragments: list[str], expected: list[Any]) -> None:
        assert previews(fragments) == expected

    def test_one_character_at_a_time(self) -> None:
        text = json.dumps({"k\u00e9": ['\U0001f600 \\ "q"', -1.5e-3, True, None, {}]})
        seen = previews(list(text))
        assert seen[-1] == json.loads(text)
        assert seen[:1] == [{}]

    @pytest.mark.parametrize(
        ("fragments", "expected"),
        [
            (['{"a": 1, "b": x', '"c": 2}'], {"a": 1}),
            (['{"a": "xy\\q', 'z"}'], {"a": "xy"}),
            (['{"a": "x\\ud83dz"}'], {"a": "x"}),
            (['{"a": "x\x01y"}'], {"a": "x"}),
            (['{"a": 01}'], {}),
            (['{"a": [1, ]}'], {"a": [1]}),
            (['{"a": 1}', ' {"b": 2}'], {"a": 1}),
            (['{"a" 1}'], {}),
        ],
    )
    def test_invalid_text_keeps_the_last_good_value(
        self, fragments: list[str], expected: Any
    ) -> None:
        """Once the text cannot be JSON, previews show the value of its longest good prefix."""
        acc = cc.ToolCallAccumulator(preview=True)
        acc.feed(D(0, "c1", "f", ""))
        for text in fragments:
            acc.feed(D(0, arguments_delta=text))
        assert acc.preview(0) == expected
        acc.feed(D(0, arguments_delta=', "more": "text"}'))
        assert acc.preview(0) == expected
        assert (
            acc.finish().invalid_tool_calls[0].arguments == "".join(fragments) + ', "more": "text"}'
        )

    def test_previews_are_independent(self) -> None:
        """Changing a preview changes neither later previews nor the calls."""
        acc = cc.ToolCallAccumulator(preview=True)
        acc.feed(D(0, "c1", "f", '{"done": [1], "open": [{"s": "ab'))
        first = acc.preview(0)
        first["extra"] = 1
        first["open"].append(2)
        first["open"][0]["s"] = "changed"
        second = acc.preview(0)
        assert second == {"done": [1], "open": [{"s": "ab"}]}
        assert second is not first
        assert second["open"] is not first["open"]
        # Containers already complete are shared between previews.
        assert second["done"] is first["done"]
        acc.feed(D(0, arguments_delta='c"}]}'))
        final = acc.preview(0)
        final["done"].append(3)
        assert acc.finish().tool_calls[0].arguments_dict() == {
            "done": [1],
            "open": [{"s": "abc"}],
        }

    def test_closed_top_level_value_is_copied(self) -> None:
        acc = cc.ToolCallAccumulator(preview=True)
        acc.feed(D(0, "c1", "f", '{"a": 1}'))
        first = acc.preview(0)
        first["b"] = 2
        assert acc.preview(0) == {"a": 1}

    def test_parallel_calls_have_their_own_previews(self) -> None:
        acc = cc.ToolCallAccumulator(preview=True)
        acc.feed(D(0, "c1", "f", '{"a": "x'))
        acc.feed(D(1, "c2", "g", '["y'))
        acc.feed(D(0, arguments_delta='z"'))
        assert acc.preview(0) == {"a": "xz"}
        assert acc.preview(1) == ["y"]
        acc.feed(D(1, arguments_delta='", 1]'))
        assert acc.preview(1) == ["y", 1]

    def test_previews_after_several_fragments_at_once(self) -> None:
        acc = cc.ToolCallAccumulator(preview=True)
        for text in ['{"a', '": "', "b\\", 'n", "c": [', "1"]:
            acc.feed(D(0, "c1" if text == '{"a' else None, "f" if text == '{"a' else None, text))
        assert acc.preview(0) == {"a": "b\n", "c": []}


_COMPLETE_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')
_TRAILING_TOKEN = re.compile(r"[-+.0-9a-zA-Z]+\Z")


def jiter_preview(prefix: str) -> Any:
    """What a preview must show: jiter's ``"trailing-strings"`` partial parse.

    Except that a number or literal still arriving (the prefix ends in one,
    outside a string) is left out: the preview cannot know it is complete.
    """
    assert jiter is not None
    if '"' not in _COMPLETE_STRING.sub("", prefix):  # not inside a string
        prefix = _TRAILING_TOKEN.sub("", prefix)
    try:
        return jiter.from_json(prefix.encode(), partial_mode="trailing-strings")
    except ValueError:  # nothing to show yet
        return None


any_text = st.text(alphabet=st.characters(exclude_categories=["Cs"]), max_size=8)
json_trees = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**20), max_value=10**20)
    | st.floats(allow_nan=False, allow_infinity=False)
    | any_text,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(any_text, inner, max_size=4),
    max_leaves=12,
)


@st.composite
def cut_json(draw: st.DrawFn) -> tuple[Any, list[str]]:
    """A JSON object or array, serialized in some layout, cut into random fragments."""
    value = draw(
        st.dictionaries(any_text, json_trees, max_size=4) | st.lists(json_trees, max_size=4)
    )
    layout = draw(st.sampled_from(["compact", "spaced", "indented"]))
    ascii_only = draw(st.booleans())
    if layout == "compact":
        text = json.dumps(value, ensure_ascii=ascii_only, separators=(",", ":"))
    elif layout == "spaced":
        text = json.dumps(value, ensure_ascii=ascii_only)
    else:
        text = json.dumps(value, ensure_ascii=ascii_only, indent=2)
    cuts = sorted(draw(st.sets(st.integers(1, max(1, len(text) - 1)), max_size=len(text))))
    bounds = [0, *cuts, len(text)]
    return value, [text[a:b] for a, b in itertools.pairwise(bounds) if b > a]


@pytest.mark.skipif(jiter is None, reason="jiter (the preview oracle) is not installed")
class TestPreviewAgainstJiter:
    """After every fragment the preview is jiter's partial parse of the text so far."""

    @given(case=cut_json())
    def test_every_fragment(self, case: tuple[Any, list[str]]) -> None:
        value, fragments = case
        prefix = ""
        acc = cc.ToolCallAccumulator(preview=True)
        acc.feed(D(0, "c1", "f", ""))
        for text in fragments:
            acc.feed(D(0, arguments_delta=text))
            prefix += text
            assert acc.preview(0) == jiter_preview(prefix), prefix
        assert acc.preview(0) == value


class TestLimits:
    """The accumulator keeps its limits; past one, a StreamError naming it; calls dropped."""

    def test_max_arguments(self) -> None:
        acc = cc.ToolCallAccumulator(max_arguments=10)
        acc.feed(D(0, "c", "f", '{"a":'))
        acc.feed(D(0, arguments_delta="12345"))  # exactly the limit
        with pytest.raises(cc.StreamError, match="max_arguments=10") as caught:
            acc.feed(D(0, arguments_delta="6"))
        assert caught.value.limit == "max_arguments"
        with pytest.raises(cc.StreamError):
            acc.feed(D(0, arguments_delta="}"))
        assert acc.finish() == cc.StreamedToolCalls((), ())

    def test_max_arguments_through_a_new_call(self) -> None:
        acc = cc.ToolCallAccumulator(max_arguments=3)
        with pytest.raises(cc.StreamError, match="max_arguments"):
            acc.feed(D(None, "c", "f", "{}{}"))

    def test_max_tool_calls(self) -> None:
        acc = cc.ToolCallAccumulator(max_tool_calls=3)
        for i in range(3):
            acc.feed(D(i, f"c{i}", "f", "{}"))
        acc.feed(D(2, arguments_delta=" "))  # more for a call already there: no new call
        with pytest.raises(cc.StreamError, match="max_tool_calls=3") as caught:
            acc.feed(D(3, "c3", "f", "{}"))
        assert caught.value.limit == "max_tool_calls"

    def test_defaults(self) -> None:
        acc = cc.ToolCallAccumulator()
        acc.feed(D(0, "c", "f", '{"a": "' + "x" * 100_000 + '"}'))
        for i in range(1, 1000):
            acc.feed(D(i, f"c{i}", "f", "{}"))
        calls, invalid = acc.finish()
        assert (len(calls), invalid) == (1000, ())


class TestOddInput:
    """Inputs that raised other exceptions: now values."""

    def test_lone_surrogate_name_without_id(self) -> None:
        acc = cc.ToolCallAccumulator()
        acc.feed(D(None, None, "\ud800", "{}"))
        calls, invalid = acc.finish()
        assert invalid == ()
        assert calls[0].name == "\ud800"
        assert calls[0].id.startswith("call_")
        assert calls[0].id == _finish([D(None, None, "\ud800", "{}")]).tool_calls[0].id

    @pytest.mark.parametrize("index", ["\u00b2", "\u0661", "1\u00b2", "\uff11"])
    def test_digits_int_refuses_are_no_index(self, index: str) -> None:
        # isdigit() is true for each, and int() refuses or reads them otherwise.
        acc = cc.ToolCallAccumulator()
        wire: Any = index  # as a stream sends it: a string, where an int belongs
        acc.feed(D(wire, "c1", "f", '{"a":'))
        acc.feed(D(wire, arguments_delta="1}"))
        calls, invalid = acc.finish()
        assert [(c.id, bytes(c.arguments)) for c in calls] == [("c1", b'{"a":1}')]
        assert invalid == ()


class TestUniqueIds:
    """Two calls of one id are refused where the second one comes (a fuzz find).

    The answer would be refused whole at the end; a stream translated from it
    would have said both calls, and its target refused the output.
    """

    def test_a_new_call_with_another_s_id(self) -> None:
        acc = cc.ToolCallAccumulator()
        acc.feed(D(0, "c1", "f", "{}"))
        with pytest.raises(cc.ValidationError, match="tool call ids must be unique"):
            acc.feed(D(1, "c1", "g", "{}"))

    def test_an_id_that_comes_late(self) -> None:
        acc = cc.ToolCallAccumulator()
        acc.feed(D(0, "c1", "f", "{}"))
        acc.feed(D(1, None, "g", "{"))
        with pytest.raises(cc.ValidationError, match="tool call ids must be unique"):
            acc.feed(D(1, "c1", None, "}"))

    def test_one_call_says_its_id_again(self) -> None:
        assert run([D(0, "c1", "f", '{"a":'), D(0, "c1", None, "1}")]) == [("c1", "f", '{"a":1}')]
        assert run([D(None, "c1", "f", '{"a":'), D(None, "c1", None, "1}")]) == [
            ("c1", "f", '{"a":1}')
        ]

    def test_an_index_used_again_by_a_call_of_another_id(self) -> None:
        assert run([D(0, "c1", "f", "{}"), D(0, "c2", "g", "{}")]) == [
            ("c1", "f", "{}"),
            ("c2", "g", "{}"),
        ]

    @pytest.mark.parametrize("family", cc.providers.NAMES)
    def test_every_stream_decoder_refuses_it_where_it_comes(self, family: str) -> None:
        codec = cc.providers.get(family)
        calls = (
            cc.ToolCall("idAAA1", "f", msgspec.Raw(b'{"a":1}')),
            cc.ToolCall("idBBB2", "g", msgspec.Raw(b'{"b":2}')),
        )
        answer = cc.Response(
            id="r",
            model="m",
            choices=(
                cc.Choice(
                    cc.AssistantMessage(None, calls), finish_reason=cc.FinishReason.TOOL_CALLS
                ),
            ),
        )
        written = codec.encode_stream(answer)
        if family == "bedrock":
            frames = EventStreamReader().feed(written)
            written = b"".join(
                encode_message(m.headers, m.payload.replace(b"idBBB2", b"idAAA1")) for m in frames
            )
        elif b"idBBB2" in written:
            written = written.replace(b"idBBB2", b"idAAA1")
        else:
            pytest.skip(f"{family} streams no call ids")
        decoder = codec.stream()
        with pytest.raises(cc.StreamError, match="tool call ids must be unique"):
            decoder.feed(written)
