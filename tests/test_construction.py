"""What builds, decodes: every field is checked when a record is built, as decoding checks it."""

from __future__ import annotations

import datetime
import math
from typing import Any

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import chatcodec as cc
from strategies import (
    audio_parts,
    file_parts,
    image_parts,
    invalid_tool_calls,
    json_values,
    mcp_resources,
    opaque_parts,
    text_parts,
    tool_calls,
    tool_details,
)

# Records a caller builds, each with the fields a caller may set.
CLASSES = [
    cc.TextPart,
    cc.ImagePart,
    cc.AudioPart,
    cc.FilePart,
    cc.ReasoningPart,
    cc.RefusalPart,
    cc.OpaquePart,
    cc.McpResource,
    cc.FileReference,
    cc.ToolCall,
    cc.InvalidToolCall,
    cc.ToolResultDetails,
    cc.ControlRecord,
    cc.SystemMessage,
    cc.DeveloperMessage,
    cc.UserMessage,
    cc.AssistantMessage,
    cc.ToolMessage,
    cc.ResponseFormat,
    cc.ToolChoice,
    cc.Reasoning,
]

parts = text_parts | image_parts | audio_parts | file_parts | mcp_resources | opaque_parts
json_raw = st.one_of(
    json_values.map(lambda v: msgspec.Raw(msgspec.json.encode(v))),
    st.dictionaries(st.text(max_size=5), json_values, max_size=3).map(
        lambda v: msgspec.Raw(msgspec.json.encode(v))
    ),
)
# Anything a caller might pass, right or wrong: the record must refuse it or round trip.
anything: st.SearchStrategy[Any] = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(),
    st.text(max_size=12),
    st.just(""),
    st.sampled_from(["auto", "low", "ultra", "ocr", "pending", "resolved", "strict", "a.py"]),
    st.binary(max_size=4),
    st.lists(json_values, max_size=3),
    st.dictionaries(st.text(max_size=5), json_values, max_size=3),
    st.dictionaries(st.integers(), st.integers(), min_size=1, max_size=2),
    st.datetimes(),
    json_raw,
    st.tuples(parts),
    st.lists(parts | tool_calls | invalid_tool_calls | st.integers() | st.text(), max_size=3).map(
        tuple
    ),
    st.lists(tool_calls, max_size=2, unique_by=lambda c: c.id).map(tuple),
    st.lists(invalid_tool_calls, max_size=2).map(tuple),
    tool_details,
    st.just(object()),
)
# extras are checked to be an object when built; their values are JSON that the
# encoder checks (see docs/specification.md).
extras = st.none() | st.dictionaries(st.text(max_size=5), json_values, max_size=2) | st.integers()


@st.composite
def attempts(draw: st.DrawFn, cls: type[msgspec.Struct]) -> dict[str, Any]:
    """Values for the required fields and for some of the others."""
    every = msgspec.structs.fields(cls)
    required = [f.name for f in every if f.required]
    optional = [f.name for f in every if not f.required]
    chosen = required + draw(st.lists(st.sampled_from(optional), unique=True))
    return {name: draw(extras if name == "extras" else anything) for name in chosen}


def same(a: Any, b: Any) -> bool:
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a):
        return math.isnan(b)
    return bool(a == b)


class TestWhateverBuildsRoundTrips:
    """A record that builds is one decode reads back; one that does not raises ValidationError."""

    @pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
    @settings(max_examples=60, deadline=None)
    @given(data=st.data())
    def test_property(self, cls: type[msgspec.Struct], data: st.DataObject) -> None:
        kwargs = data.draw(attempts(cls))
        try:
            record = cls(**kwargs)
        except cc.ValidationError:
            return
        assert cc.decode(cc.encode(record), type=cls) == record
        assert cc.decode(cc.encode(record, format="msgpack"), type=cls, format="msgpack") == record

    @pytest.mark.parametrize(
        ("output", "held"),
        [
            # Found by the property in a fresh clone: a Raw output came back as None.
            (msgspec.Raw(b"null"), None),
            (msgspec.Raw(b'{"k":[1,2]}'), {"k": [1, 2]}),
            ({"a": msgspec.Raw(b"true")}, {"a": True}),
        ],
    )
    def test_json_text_output_is_held_as_its_value(self, output: Any, held: Any) -> None:
        details = cc.ToolResultDetails(output=output)
        assert details.output == held
        assert cc.decode(cc.encode(details), type=cc.ToolResultDetails) == details

    def test_output_that_is_no_json_text(self) -> None:
        with pytest.raises(cc.ValidationError) as raised:
            cc.ToolResultDetails(output=msgspec.Raw(b"{bad"))
        assert raised.value.path == "$.output"


class TestRefusedWhenBuilt:
    """The forms that used to build and then fail to decode."""

    @pytest.mark.parametrize(
        ("build", "path"),
        [
            (lambda: cc.user(["x", 5]), "$.content[1]"),  # type: ignore[list-item]
            (lambda: cc.user([""]), "$.content[0]"),
            (lambda: cc.user("x", metadata=5), "$.metadata"),  # type: ignore[arg-type]
            (lambda: cc.user("x", metadata={"k": object()}), "$.metadata[...]"),
            (lambda: cc.user("x", metadata={1: 2}), "$.metadata"),  # type: ignore[dict-item]
            (lambda: cc.user("x", metadata={"k": math.nan}), "$.metadata[...]"),
            (lambda: cc.user("x", metadata={"k": 2**64}), "$.metadata[...]"),
            (lambda: cc.AssistantMessage(None, ({"id": "x"},)), "$.tool_calls[0]"),  # type: ignore[arg-type]
            (lambda: cc.AssistantMessage((cc.ImagePart(url="u"),)), "$.content[0]"),  # type: ignore[arg-type]
            (lambda: cc.AssistantMessage(None, (), (5,)), "$.invalid_tool_calls[0]"),  # type: ignore[arg-type]
            (lambda: cc.ToolMessage("c", (cc.ReasoningPart("r"),)), "$.content[0]"),  # type: ignore[arg-type]
            (lambda: cc.ToolMessage("c", "x", details={"a": 1}), "$.details"),  # type: ignore[arg-type]
            (lambda: cc.ImagePart(url="u", detail="ultra"), "$.detail"),  # type: ignore[arg-type]
            (lambda: cc.ImagePart(url="u", recognition="magic"), "$.recognition"),  # type: ignore[arg-type]
            (lambda: cc.ImagePart(url="u", recognized_text=5), "$.recognized_text"),  # type: ignore[arg-type]
            (lambda: cc.ReasoningPart("r", signature=5), "$.signature"),  # type: ignore[arg-type]
            (lambda: cc.ControlRecord(5), "$.type"),  # type: ignore[arg-type]
            (lambda: cc.ControlRecord("x", old=5), "$.old"),  # type: ignore[arg-type]
            (lambda: cc.McpResource("s", "u", "c", retrieved_at="now"), "$.retrieved_at"),  # type: ignore[arg-type]
            (lambda: cc.McpResource("s", "u", "c", mime_type=5), "$.mime_type"),  # type: ignore[arg-type]
            (lambda: cc.ToolResultDetails(duration=math.inf), "$.duration"),
            (lambda: cc.ToolResultDetails(duration="1"), "$.duration"),  # type: ignore[arg-type]
            (lambda: cc.ToolResultDetails(recoverable=1), "$.recoverable"),  # type: ignore[arg-type]
            (lambda: cc.ToolResultDetails(timestamp="now"), "$.timestamp"),  # type: ignore[arg-type]
            (lambda: cc.FileReference("a.py", status="done"), "$.status"),  # type: ignore[arg-type]
            (lambda: cc.FileReference("a.py", start_line="1"), "$.start_line"),  # type: ignore[arg-type]
            (lambda: cc.UserMessage("x", extras=5), "$.extras"),  # type: ignore[arg-type]
            (lambda: cc.Transcript(v=2, records=(5,)), "$.records[0]"),  # type: ignore[arg-type]
            (lambda: cc.Transcript(v=2, policy="loose"), "$.policy"),  # type: ignore[arg-type]
            (lambda: cc.ResponseFormat("xml"), "$.type"),  # type: ignore[arg-type]
            (lambda: cc.ResponseFormat("json_schema", 5), "$.name"),  # type: ignore[arg-type]
            (lambda: cc.ResponseFormat("json_schema", strict=1), "$.strict"),  # type: ignore[arg-type]
            (lambda: cc.ResponseFormat("json_schema", schema=5), "$.schema"),  # type: ignore[arg-type]
            (lambda: cc.ResponseFormat("json_schema", schema={"a": math.nan}), "$.schema[...]"),
        ],
    )
    def test_refused(self, build: Any, path: str) -> None:
        with pytest.raises(cc.ValidationError) as info:
            build()
        assert info.value.path == path
        assert isinstance(info.value, ValueError)

    def test_what_decoding_gives_still_builds(self) -> None:
        when = datetime.datetime(2026, 1, 2, tzinfo=datetime.UTC)
        resource = cc.McpResource("s", "u", "c", retrieved_at=when)
        assert cc.decode(cc.encode(resource), type=cc.McpResource) == resource
        unknown = cc.UnknownPart(b'{"type":"sketch"}')
        message = cc.UserMessage((cc.TextPart("x"), unknown))  # type: ignore[arg-type]
        assert cc.decode(cc.encode(message), type=cc.UserMessage) == message
        assert cc.ToolResultDetails(duration=2).duration == 2


def test_a_response_formats_schema_is_frozen() -> None:
    def city() -> dict[str, Any]:
        return {"type": "object", "properties": {"a": {"type": "string"}}}

    schema = city()
    fmt = cc.ResponseFormat("json_schema", "x", schema)
    schema["properties"] = {}  # the caller's dict is not the record's
    assert fmt.schema == city()
    assert fmt.schema is not None
    with pytest.raises(TypeError, match="cannot be changed"):
        fmt.schema["type"] = "array"
    with pytest.raises(TypeError, match="cannot be changed"):
        fmt.schema["properties"]["b"] = {}
    request = cc.Request((cc.user("x"),), response_format=fmt)
    again = cc.Request(
        (cc.user("x"),), response_format=cc.ResponseFormat("json_schema", "x", city())
    )
    assert hash(request) == hash(again)


class TestChoicesOfAnotherType:
    """A closed choice given None where it is required, or a list, is refused, not a TypeError.

    The round-trip property found both for ``FileReference.status`` in a fresh clone.
    """

    @pytest.mark.parametrize("status", [None, [], {}, 1])
    def test_file_reference_status(self, status: object) -> None:
        with pytest.raises(cc.ValidationError, match="must be one of") as raised:
            cc.FileReference(path="0", status=status)  # type: ignore[arg-type]
        assert raised.value.path == "$.status"

    @pytest.mark.parametrize("field", ["detail", "recognition"])
    def test_image_choices(self, field: str) -> None:
        with pytest.raises(cc.ValidationError, match="must be one of"):
            cc.ImagePart(url="https://example.com/a.png", **{field: []})  # type: ignore[arg-type]

    def test_conversation_policy(self) -> None:
        with pytest.raises(cc.ValidationError, match="policy"):
            cc.Conversation(policy=[])  # type: ignore[arg-type]
