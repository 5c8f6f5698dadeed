"""Transcript records beyond chat messages: control records, unknown kinds, versions,
approvals, tool-run details, MCP resources and image recognition results."""

from __future__ import annotations

import datetime
import json
import logging
import pickle
from typing import Any

import msgspec
import pytest
from hypothesis import given
from hypothesis import strategies as st

import chatcodec as cc
from strategies import control_records, messages

FORMATS: tuple[cc.Format, ...] = ("json", "msgpack")
WHEN = datetime.datetime(2026, 11, 22, 9, 30, tzinfo=datetime.UTC)


def roundtrip(value: object, type_: object, format: str) -> object:
    return cc.decode(cc.encode(value, format=format), type=type_, format=format)  # type: ignore[arg-type, call-overload]


class TestControlRecords:
    """Control records live in histories, are tagged, and are never messages."""

    def test_factories_and_tags(self) -> None:
        record = cc.mode_change("plan", "act")
        assert (record.type, record.old, record.new) == ("mode_change", "plan", "act")
        assert cc.branch_switch("main", "try-2").type == "branch_switch"
        assert json.loads(cc.encode(record)) == {
            "role": "control",
            "type": "mode_change",
            "old": "plan",
            "new": "act",
        }
        assert str(record) == "control: mode_change"

    def test_open_kind_with_parameters(self) -> None:
        record = cc.ControlRecord("budget_raised", parameters={"tokens": 8000}, id="r1")
        for format in FORMATS:
            assert roundtrip(record, cc.ControlRecord, format) == record

    def test_empty_type_is_refused(self) -> None:
        with pytest.raises(cc.ValidationError) as info:
            cc.ControlRecord("")
        assert info.value.path == "$.type"
        with pytest.raises(cc.ValidationError):
            cc.decode(b'{"role":"control","type":""}', type=cc.Entry)

    def test_ordering_rules_pass_over_them(self) -> None:
        conv = cc.Conversation([cc.system("s"), cc.mode_change(None, "plan"), cc.user("hi")])
        conv.add(cc.branch_switch("a", "b"))
        conv.add(cc.assistant("hello"))
        assert [m.role.value for m in conv.messages] == ["system", "user", "assistant"]
        assert len(conv) == 3
        assert len(conv.records) == 5
        assert conv.last == cc.assistant("hello")
        with pytest.raises(cc.OrderingError) as info:
            conv.add(cc.assistant("again"))  # strict: user and assistant alternate
        assert info.value.index == 5  # its place among the records

    def test_validate_passes_over_them(self) -> None:
        records = [cc.system("s"), cc.mode_change("a", "b"), cc.user("u")]
        assert cc.validate(records) == []  # type: ignore[arg-type]

    def test_transcript_round_trip(self) -> None:
        conv = cc.Conversation([cc.system("s"), cc.mode_change("a", "b"), cc.user("u")])
        for format in FORMATS:
            data = cc.encode(conv, format=format)
            back = cc.decode(data, type=cc.Conversation, format=format)
            assert back == conv
            assert back.records[1] == cc.mode_change("a", "b")
        transcript = conv.to_transcript()
        assert transcript.messages == conv.messages
        assert transcript.records == conv.records

    @given(st.lists(messages | control_records, max_size=6))
    def test_any_records_round_trip(self, records: list[cc.Entry]) -> None:
        transcript = cc.Transcript(2, tuple(records), policy="lenient")
        for format in FORMATS:
            assert roundtrip(transcript, cc.Transcript, format) == transcript


class TestUnknownKinds:
    """A tag this version does not know is kept verbatim and reported, never a failure."""

    DATA = (
        b'{"v":2,"records":[{"role":"system","content":"s"},'
        b'{"role":"checkpoint", "label": "after setup", "n": [1, 2.50]},'
        b'{"role":"user","content":[{"type":"text","text":"hi"},'
        b'{"type":"hologram",  "frames": 3}]}]}'
    )

    def test_transcript_keeps_them_byte_for_byte(self) -> None:
        transcript = cc.decode(self.DATA, type=cc.Transcript)
        record: object = transcript.records[1]  # typed as a known kind; decoded verbatim
        assert isinstance(record, cc.UnknownRecord)
        assert record.tag == "checkpoint"
        part = transcript.messages[1].content[1]  # type: ignore[index]
        assert isinstance(part, cc.UnknownPart)
        assert part.tag == "hologram"
        assert cc.encode(transcript) == self.DATA

    def test_conversation_keeps_them(self) -> None:
        conv = cc.decode(self.DATA, type=cc.Conversation)
        assert [type(r).__name__ for r in conv.records] == [
            "SystemMessage",
            "UnknownRecord",
            "UserMessage",
        ]
        assert cc.encode(conv) == self.DATA

    def test_lenient_decode_reports_them_as_warnings(self) -> None:
        conv, problems = cc.decode_lenient(self.DATA, type=cc.Conversation)
        assert cc.encode(conv) == self.DATA
        assert [(p.path, p.severity) for p in problems] == [
            ("$.records[1]", "warning"),
            ("$.records[2].content[1]", "warning"),
        ]
        assert "after setup" not in str(problems)

    def test_strict_decode_reports_them_in_the_log(self, caplog: pytest.LogCaptureFixture) -> None:
        wanted = [
            (
                "chatcodec",
                logging.WARNING,
                "a record of a kind this version does not know, kept verbatim - at `$.records[1]`",
            ),
            (
                "chatcodec",
                logging.WARNING,
                "a part of a kind this version does not know, "
                "kept verbatim - at `$.records[2].content[1]`",
            ),
        ]
        paths: list[tuple[str, object]] = [
            ("decode json", lambda: cc.decode(self.DATA, type=cc.Conversation)),
            ("transcript", lambda: cc.decode(self.DATA, type=cc.Transcript)),
            ("read_transcript", lambda: cc.read_transcript(self.DATA)),
            (
                "msgpack",
                lambda: cc.decode(
                    cc.encode(cc.decode(self.DATA, type=cc.Transcript), format="msgpack"),
                    type=cc.Transcript,
                    format="msgpack",
                ),
            ),
        ]
        for name, read in paths:
            caplog.clear()
            with caplog.at_level(logging.WARNING, logger="chatcodec"):
                read()  # type: ignore[operator]
            assert caplog.record_tuples[-2:] == wanted, name
            assert "after setup" not in caplog.text
            assert "checkpoint" not in caplog.text
            assert "hologram" not in caplog.text

    def test_a_part_in_a_message_is_reported(self, caplog: pytest.LogCaptureFixture) -> None:
        with caplog.at_level(logging.WARNING, logger="chatcodec"):
            cc.decode(b'{"role":"assistant","content":[{"type":"sketch","svg":"<svg/>"}]}')
            list(cc.iter_jsonl([b'{"role":"user","content":[{"type":"x"}]}']))
        assert [r.getMessage().rpartition(" - at ")[2] for r in caplog.records] == [
            "`$.content[0]`",
            "`$.content[0]`",
        ]

    def test_known_kinds_log_nothing(self, caplog: pytest.LogCaptureFixture) -> None:
        with caplog.at_level(logging.DEBUG, logger="chatcodec"):
            cc.decode(
                b'{"v":2,"policy":"provider","records":[{"role":"user","content":[{"type":"text","text":"x"}]}]}',
                type=cc.Conversation,
            )
        assert caplog.records == []

    def test_msgpack_keeps_their_values(self) -> None:
        transcript = cc.decode(self.DATA, type=cc.Transcript)
        again = roundtrip(transcript, cc.Transcript, "msgpack")
        assert again == transcript  # equal values, spacing aside

    def test_in_assistant_and_tool_content(self) -> None:
        data = b'{"role":"assistant","content":[{"type":"sketch","svg":"<svg/>"}]}'
        assistant = cc.decode(data, type=cc.AssistantMessage)
        assert isinstance(assistant.content[0], cc.UnknownPart)  # type: ignore[index]
        tool = cc.decode(
            b'{"role":"tool","tool_call_id":"c","content":[{"type":"chart","data":[1]}]}',
            type=cc.ToolMessage,
        )
        assert isinstance(tool.content[0], cc.UnknownPart)

    def test_value_semantics(self) -> None:
        a = cc.UnknownPart(b'{"type":"x","a":1}')
        b = cc.UnknownPart(b'{"a": 1, "type": "x"}')
        assert a == b
        assert hash(a) == hash(b)
        assert a != cc.UnknownRecord(b'{"type":"x","a":1}')
        assert pickle.loads(pickle.dumps(a)) == a
        assert repr(a) == "UnknownPart(tag='x', <18 bytes>)"
        with pytest.raises(AttributeError):
            a.data = msgspec.Raw(b"{}")


class TestUnknownRoles:
    """A message of a role a newer version wrote falls back at every level, with a warning."""

    DATA = b'{"role":"critic","content":"x","score":3}'
    WARNING = "a record of a kind this version does not know, kept verbatim - at `{}`"

    def test_a_single_message(self, caplog: pytest.LogCaptureFixture) -> None:
        record = cc.decode(self.DATA)
        assert isinstance(record, cc.UnknownRecord)
        assert record.tag == "critic"
        assert cc.encode(record) == self.DATA
        assert caplog.messages == [self.WARNING.format("$")]

    def test_msgpack(self, caplog: pytest.LogCaptureFixture) -> None:
        data = msgspec.msgpack.encode(msgspec.json.decode(self.DATA))
        assert cc.decode(data, format="msgpack") == cc.UnknownRecord(self.DATA)
        assert caplog.messages == [self.WARNING.format("$")]

    def test_a_list(self, caplog: pytest.LogCaptureFixture) -> None:
        data = b"[" + self.DATA + b',{"role":"user","content":"y"}]'
        records = cc.decode(data, type=list[cc.Message])
        assert records == [cc.UnknownRecord(self.DATA), cc.user("y")]
        assert cc.encode(records) == data
        assert caplog.messages == [self.WARNING.format("$[0]")]

    def test_strict_jsonl(self, caplog: pytest.LogCaptureFixture) -> None:
        lines = [b'{"role":"user","content":"y"}', self.DATA]
        assert list(cc.iter_jsonl(lines)) == [cc.user("y"), cc.UnknownRecord(self.DATA)]
        assert caplog.messages == [self.WARNING.format("$")]

    @pytest.mark.parametrize("kind", [cc.Message, list[cc.Message]])
    def test_lenient_keeps_it(self, kind: Any, caplog: pytest.LogCaptureFixture) -> None:
        data = self.DATA if kind is cc.Message else b"[" + self.DATA + b"]"
        value, problems = cc.decode_lenient(data, type=kind)
        assert value == (cc.UnknownRecord(self.DATA) if kind is cc.Message else [value[0]])
        assert [str(p) for p in problems] == [
            "warning: " + self.WARNING.format("$" if kind is cc.Message else "$[0]")
        ]
        assert caplog.messages

    def test_a_known_role_in_another_case_is_an_error(self) -> None:
        # A mistake, not a newer kind (lenient decoding repairs it).
        with pytest.raises(cc.ValidationError, match="role must be one of"):
            cc.decode(b'{"role":"User","content":"x"}')

    def test_a_role_that_is_not_text_is_an_error(self) -> None:
        with pytest.raises(cc.ValidationError):
            cc.decode(b'{"role":5,"content":"x"}')

    def test_a_message_class_asked_for_is_still_an_error(self) -> None:
        with pytest.raises(cc.ValidationError):
            cc.decode(self.DATA, type=cc.UserMessage)


class TestVersions:
    """Older transcripts migrate transparently; each step says what it did."""

    V1 = (
        b'{"v":1,"policy":"lenient","messages":[{"role":"user","content":"Weather?"},'
        b'{"role":"assistant","tool_calls":[{"id":"c1","name":"get_weather",'
        b'"arguments":{ "city" : "Paris" }}]}],"metadata":{"k":1}}'
    )

    def test_v1_to_v2(self) -> None:
        transcript, notes = cc.read_transcript(self.V1)
        assert notes == ["v1 -> v2: messages renamed records"]
        assert transcript.v == 2
        assert transcript.policy == "lenient"
        assert transcript.metadata == {"k": 1}
        call = transcript.messages[1].tool_calls[0]  # type: ignore[union-attr]
        assert bytes(call.arguments) == b'{ "city" : "Paris" }'  # untouched bytes

    def test_decode_migrates_transparently(self) -> None:
        assert cc.decode(self.V1, type=cc.Transcript).v == 2
        conv = cc.decode(self.V1, type=cc.Conversation)
        assert len(conv) == 2
        assert json.loads(cc.encode(conv))["v"] == 2

    def test_msgpack_v1(self) -> None:
        data = msgspec.msgpack.encode(json.loads(self.V1))
        transcript, notes = cc.read_transcript(data, format="msgpack")
        assert transcript.v == 2
        assert notes == ["v1 -> v2: messages renamed records"]

    def test_current_version_needs_no_step(self) -> None:
        data = cc.encode(cc.Transcript(2, (cc.user("x"),)))
        assert cc.read_transcript(data) == (cc.Transcript(2, (cc.user("x"),)), [])

    @pytest.mark.parametrize(
        ("data", "rule"),
        [
            (b'{"v":3,"records":[]}', "unsupported version; this chatcodec reads 1 to 2"),
            (b'{"v":0,"records":[]}', "unsupported version; this chatcodec reads 1 to 2"),
            (b'{"v":"2","records":[]}', "must be an integer"),
            (b'{"records":[]}', "object missing required field `v`"),
            (b'{"v":1,"messages":[],"records":[]}', "a version 1 transcript cannot have records"),
        ],
    )
    def test_refused(self, data: bytes, rule: str) -> None:
        with pytest.raises(cc.ValidationError) as info:
            cc.read_transcript(data)
        assert info.value.rule == rule

    def test_malformed(self) -> None:
        with pytest.raises(cc.DecodeError):
            cc.read_transcript(b'{"v":1,')

    def test_every_migration_is_tested(self) -> None:
        from chatcodec._migrate import CURRENT_VERSION, MIGRATIONS

        assert sorted(MIGRATIONS) == list(range(1, CURRENT_VERSION))


class TestApprovals:
    """Approval status lives on the call; changing it returns a new message."""

    CALL = cc.tool_call("c1", "delete_file", {"path": "a.txt"})

    def test_with_approval(self) -> None:
        message = cc.assistant(None, [self.CALL, cc.tool_call("c2", "ls", {})])
        denied = message.with_approval("c1", "denied")
        assert denied.tool_calls[0].approval == "denied"
        assert denied.tool_calls[1].approval is None
        assert message.tool_calls[0].approval is None  # the original is unchanged
        assert denied.with_approval("c1", None) == message
        for format in FORMATS:
            assert roundtrip(denied, cc.Message, format) == denied

    def test_unknown_call_and_bad_status(self) -> None:
        message = cc.assistant(None, [self.CALL])
        with pytest.raises(KeyError):
            message.with_approval("nope", "approved")
        with pytest.raises(cc.ValidationError) as info:
            self.CALL.with_approval("maybe")  # type: ignore[arg-type]
        assert info.value.path == "$.approval"
        with pytest.raises(cc.ValidationError):
            cc.decode(
                b'{"role":"assistant","tool_calls":[{"id":"c","name":"f","arguments":{},'
                b'"approval":"maybe"}]}'
            )

    def test_approval_is_part_of_identity(self) -> None:
        assert self.CALL.with_approval("approved") != self.CALL
        assert hash(self.CALL) != hash(self.CALL.with_approval("approved"))


class TestToolRunDetails:
    """What the application knows about a run stays with the tool message."""

    def test_round_trip(self) -> None:
        details = cc.ToolResultDetails(
            error_message="disk full",
            recoverable=True,
            duration=0.25,
            timestamp=WHEN,
            output={"written": 0, "items": [1, 2]},
        )
        message = cc.ToolMessage("c1", "failed", is_error=True, details=details)
        assert message.status == "error"
        assert cc.tool_result("c1", "ok").status == "success"
        for format in FORMATS:
            assert roundtrip(message, cc.Message, format) == message

    def test_stack_trace_is_stored_and_never_sent(self) -> None:
        def run_tool() -> None:
            raise FileNotFoundError("secret-path.txt")

        try:
            run_tool()
        except FileNotFoundError as exc:
            details = cc.ToolResultDetails.from_exception(exc, recoverable=True)
        assert details.recoverable is True
        assert details.error_message == "FileNotFoundError: secret-path.txt"
        assert details.stack_trace is not None
        assert "in run_tool" in details.stack_trace
        assert "secret-path" not in repr(details)
        message = cc.ToolMessage("c1", "the file is missing", is_error=True, details=details)
        for format in FORMATS:
            assert roundtrip(message, cc.Message, format) == message
        stored = json.loads(cc.encode(message))
        assert stored["details"]["stack_trace"] == details.stack_trace
        call = cc.assistant(tool_calls=[cc.tool_call("c1", "read_file", {"p": "x"})])
        request = cc.Request((cc.user("go"), call, message), model="m", max_tokens=10)
        from chatcodec import providers

        for name in providers.NAMES:
            body = providers.get(name).encode_request(request)
            assert b"Traceback" not in body
            assert b"in run_tool" not in body

    def test_negative_duration(self) -> None:
        with pytest.raises(cc.ValidationError) as info:
            cc.ToolResultDetails(duration=-1)
        assert info.value.path == "$.duration"
        with pytest.raises(cc.ValidationError) as info:
            cc.decode(b'{"role":"tool","tool_call_id":"c","content":"","details":{"duration":-2}}')
        assert info.value.path == "$.details.duration"


class TestMcpResources:
    """MCP resources are parts: text for the model, metadata in storage."""

    def test_round_trip_and_text(self) -> None:
        part = cc.McpResource(
            "docs", "file:///guide.md", "# Guide", mime_type="text/markdown", retrieved_at=WHEN
        )
        assert part.text == "[resource file:///guide.md from docs]\n# Guide"
        message = cc.user(["Use this:", part])
        for format in FORMATS:
            assert roundtrip(message, cc.Message, format) == message
        assert json.loads(cc.encode(part))["retrieved_at"] == "2026-11-22T09:30:00Z"

    @pytest.mark.parametrize(("server", "uri", "path"), [("", "u", "$.server"), ("s", "", "$.uri")])
    def test_required(self, server: str, uri: str, path: str) -> None:
        with pytest.raises(cc.ValidationError) as info:
            cc.McpResource(server, uri, "x")
        assert info.value.path == path


class TestImageRecognition:
    """Images carry what recognition found; running it is out of scope."""

    def test_round_trip_and_stand_in(self) -> None:
        image = cc.ImagePart(
            url="https://x/receipt.png", recognition="ocr", recognized_text="TOTAL 12.50"
        )
        assert image.text_stand_in == "TOTAL 12.50"
        described = cc.ImagePart(url="https://x/cat.png", vision_analysis="a cat")
        assert described.text_stand_in == "a cat"
        assert cc.ImagePart(url="https://x/y.png").text_stand_in is None
        message = cc.user([image, described])
        for format in FORMATS:
            assert roundtrip(message, cc.Message, format) == message

    def test_bad_mode(self) -> None:
        with pytest.raises(cc.ValidationError):
            cc.decode(
                b'{"role":"user","content":[{"type":"image","url":"u","recognition":"guess"}]}'
            )
