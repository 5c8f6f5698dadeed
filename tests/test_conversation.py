from __future__ import annotations

import copy
import pickle
import threading
from pathlib import Path

import pytest

import chatcodec as cc

S, U, A = cc.system("s"), cc.user("u"), cc.assistant("a")
CALL = cc.tool_call("c1", "get_weather", {"city": "Paris"})


class TestBasics:
    """A conversation is an ordered, checked history."""

    def test_add_and_read(self) -> None:
        conv = cc.Conversation()
        assert len(conv) == 0
        assert cc.Conversation().last is None
        empty: tuple[cc.Message, ...] = conv.messages
        assert empty == ()
        conv.add(S)
        conv.add(U)
        assert conv.messages == (S, U)
        assert conv.last == U
        assert list(conv) == [S, U]
        assert conv[0] == S
        assert conv[-1] == U
        assert conv[:1] == (S,)
        assert conv.policy == "strict"

    def test_failed_add_leaves_it_unchanged(self) -> None:
        conv = cc.Conversation([S, U])
        before = conv.messages
        with pytest.raises(cc.OrderingError) as info:
            conv.add(U)
        assert info.value.index == 2
        assert conv.messages == before
        conv.add(A)  # the state was not advanced by the failed add
        assert len(conv) == 3

    def test_extend_is_all_or_nothing(self) -> None:
        conv = cc.Conversation([S])
        with pytest.raises(cc.OrderingError) as info:
            conv.extend([U, A, A])
        assert info.value.index == 3
        assert conv.messages == (S,)
        conv.extend([U, A])
        assert len(conv) == 3

    def test_clear(self) -> None:
        conv = cc.Conversation([S, U])
        conv.clear()
        assert len(conv) == 0
        conv.add(S)  # the order starts over

    def test_snapshots_are_immutable_and_stable(self) -> None:
        conv = cc.Conversation([S])
        snap = conv.messages
        conv.add(U)
        assert snap == (S,)
        assert conv.messages is conv.messages  # shared until the next change

    def test_equality(self) -> None:
        assert cc.Conversation([S]) == cc.Conversation([S])
        assert cc.Conversation([S]) != cc.Conversation([S], policy="lenient")
        assert cc.Conversation([S]) != [S]
        assert cc.Conversation([S], metadata={"a": 1}) != cc.Conversation([S])
        with pytest.raises(TypeError):
            hash(cc.Conversation())

    def test_repr_shows_no_content(self) -> None:
        assert repr(cc.Conversation([S, U])) == "Conversation(2 messages, policy='strict')"


class TestById:
    """Records are looked up, replaced and removed by their id."""

    def history(self) -> cc.Conversation:
        return cc.Conversation(
            [
                cc.system("s", id="s"),
                cc.user("u1", id="u1"),
                cc.mode_change("plan", "act", id="mode"),
                cc.assistant(tool_calls=[CALL], id="a1"),
                cc.tool_result("c1", "18C", id="r1"),
                cc.assistant("done", id="a2"),
            ]
        )

    def test_get(self) -> None:
        conv = self.history()
        assert conv.get("u1") is conv[1]
        assert conv.get("mode") == conv.records[2]
        assert conv.get("nope") is None

    def test_the_first_of_a_repeated_id(self) -> None:
        conv = cc.Conversation([cc.user("a", id="x"), cc.user("b", id="x")], policy="lenient")
        assert conv.get("x") is conv[0]
        conv.remove("x")
        assert conv.get("x") is conv[0]
        assert conv[0].text == "b"

    def test_replace(self) -> None:
        conv = self.history()
        before = conv.messages
        conv.replace("u1", cc.user("edited", id="u1"))
        assert conv[1].text == "edited"
        assert conv.messages[2:] == before[2:]
        assert before[1].text == "u1"  # an earlier snapshot is unchanged
        conv.replace("u1", cc.user("renamed", id="u9"))
        assert conv.get("u1") is None
        assert conv.get("u9") is conv[1]
        conv.add(cc.user("more"))  # the order goes on from the new history
        assert len(conv) == 6

    def test_a_replace_that_breaks_the_order_changes_nothing(self) -> None:
        conv = self.history()
        before = conv.records
        with pytest.raises(cc.OrderingError) as info:
            conv.replace("a1", cc.assistant("no calls", id="a1"))  # r1 answers nothing
        assert info.value.index == 4
        assert conv.records == before
        with pytest.raises(cc.OrderingError):
            conv.replace("s", cc.user("not a system message"))
        assert conv.records == before
        conv.add(cc.user("next"))  # the state was kept too
        assert len(conv) == 6

    def test_remove(self) -> None:
        conv = self.history()
        assert conv.remove("mode") == cc.mode_change("plan", "act", id="mode")
        assert len(conv.records) == 5
        assert len(conv) == 5
        conv.add(cc.user("u2", id="u2"))
        assert conv.remove("u2").id == "u2"  # type: ignore[union-attr]
        assert len(conv) == 5

    def test_a_remove_that_breaks_the_order_changes_nothing(self) -> None:
        conv = self.history()
        before = conv.records
        with pytest.raises(cc.OrderingError):
            conv.remove("a1")  # its answer would be left alone
        assert conv.records == before

    def test_a_missing_id(self) -> None:
        conv = self.history()
        with pytest.raises(cc.NotFoundError, match="no record has the id 'nope'") as caught:
            conv.replace("nope", U)
        assert isinstance(caught.value, KeyError)
        assert caught.value.id == "nope"
        with pytest.raises(cc.NotFoundError):
            conv.remove("nope")


class TestPolicies:
    """Each policy is kept with the history and checks every change."""

    def test_provider_policy_round_trips(self) -> None:
        conv = cc.Conversation([U, A, U], policy="provider")
        back = cc.decode(cc.encode(conv), type=cc.Conversation)
        assert back == conv
        assert back.policy == "provider"
        with pytest.raises(cc.OrderingError):
            back.add(cc.tool_result("c1", "orphan"))

    def test_strict_error_names_the_others(self) -> None:
        with pytest.raises(cc.OrderingError, match="'provider' and 'lenient' policies"):
            cc.Conversation([U])


class TestApprovals:
    """A tool call's approval is set in the history itself."""

    def test_set_approval(self) -> None:
        conv = cc.Conversation([S, U, cc.assistant(tool_calls=[CALL], id="a1")])
        updated = conv.set_approval("c1", "denied")
        assert updated.tool_calls[0].approval == "denied"
        assert conv[2] is updated
        assert conv.get("a1") is updated
        assert conv.set_approval("c1", None).tool_calls[0].approval is None
        conv.set_approval("c1", "denied")
        request, _ = cc.to_request(conv)
        sent = request.messages[2]
        assert isinstance(sent, cc.AssistantMessage)
        assert sent.tool_calls[0].approval == "denied"

    def test_unknown_call_and_bad_status(self) -> None:
        conv = cc.Conversation([S, U, cc.assistant(tool_calls=[CALL])])
        before = conv.records
        with pytest.raises(cc.NotFoundError, match="no tool call has the id 'c9'"):
            conv.set_approval("c9", "approved")
        with pytest.raises(cc.ValidationError):
            conv.set_approval("c1", "bogus")  # type: ignore[arg-type]
        assert conv.records == before


class TestReadsAfterWrites:
    """Reading the length, an index or the last message builds no snapshot."""

    def test_small_reads_take_no_snapshot(self, monkeypatch: pytest.MonkeyPatch) -> None:
        conv = cc.Conversation(policy="lenient")

        def no_snapshot(self: cc.Conversation) -> tuple[cc.Message, ...]:
            raise AssertionError("a snapshot was built")

        monkeypatch.setattr(cc.Conversation, "messages", property(no_snapshot))
        monkeypatch.setattr(cc.Conversation, "records", property(no_snapshot))
        for i in range(50):
            conv.add(cc.user(str(i)))
            conv.add(cc.mode_change(None, str(i)))
            assert len(conv) == i + 1
            assert conv[-1].text == str(i)
            assert conv[i].text == str(i)
            assert conv.last is not None
            assert conv.last.text == str(i)
            assert conv[1:2][0].text == "1" if i else True
            assert [m.text for m in conv][-1] == str(i)
            assert conv

    def test_a_snapshot_is_shared_until_the_next_change(self) -> None:
        conv = cc.Conversation([S, U])
        assert conv.messages is conv.messages
        assert conv.records is conv.records
        first = conv.messages
        conv.add(A)
        assert conv.messages is not first
        assert first == (S, U)

    def test_out_of_range(self) -> None:
        conv = cc.Conversation([S])
        with pytest.raises(IndexError):
            conv[1]
        with pytest.raises(IndexError):
            conv[-2]


class TestFilters:
    """Filters pick messages by role, in order."""

    def test_filters(self) -> None:
        conv = cc.Conversation([S, U, cc.assistant(None, [CALL]), cc.tool_result("c1", "r"), A])
        assert conv.by_role("ASSISTANT") == conv.assistant_messages()
        assert len(conv.assistant_messages()) == 2
        assert conv.by_role(cc.Role.TOOL) == conv.tool_messages() == (cc.tool_result("c1", "r"),)
        assert conv.user_messages() == (U,)
        assert conv.system_messages() == (S,)
        assert conv.developer_messages() == ()
        assert cc.Conversation([cc.developer("d")]).developer_messages() == (cc.developer("d"),)


class TestWholeHistory:
    """Concatenation, copies, pickling, estimates and the pretty form."""

    def test_concat(self) -> None:
        left = cc.Conversation([S, U])
        joined = left.concat([A])
        assert joined.messages == (S, U, A)
        assert (left + cc.Conversation([A], policy="lenient")) == joined
        assert len(left) == 2
        with pytest.raises(cc.OrderingError):
            left.concat([U])

    def test_copy_and_pickle(self) -> None:
        conv = cc.Conversation(
            [S, U, cc.assistant(None, [CALL])], policy="lenient", metadata={"t": 1}, extras={"x": 2}
        )
        for clone in (conv.copy(), copy.deepcopy(conv), pickle.loads(pickle.dumps(conv))):
            assert clone == conv
            clone.add(cc.tool_result("c1", "r"))
            assert len(conv) == 3

    def test_estimate_tokens(self) -> None:
        conv = cc.Conversation(
            [
                cc.system("x" * 8),
                cc.user([cc.TextPart("y" * 4), cc.ImagePart(url="https://z")]),
                cc.assistant(None, [CALL], invalid_tool_calls=[cc.InvalidToolCall(None, "g", "{")]),
                cc.tool_result("c1", "z" * 3),
            ]
        )
        # 8 + 4 + (11 + 16) + (1 + 1) + 3 = 44 chars -> 11 tokens
        assert conv.estimate_tokens() == 11
        assert cc.Conversation().estimate_tokens() == 0

    def test_pretty(self) -> None:
        conv = cc.Conversation(
            [
                S,
                cc.user(["look", cc.ImagePart(url="u")]),
                cc.assistant("checking", [CALL]),
                cc.tool_result("c1", "18C", is_error=True),
            ]
        )
        assert conv.pretty() == (
            "[0] system: s\n"
            "[1] user: look <image>\n"
            "[2] assistant: checking\n"
            '    -> get_weather({"city":"Paris"}) [c1]\n'
            "[3] tool (c1 error): 18C"
        )


class TestThreads:
    """Several threads adding and reading never see a broken history."""

    def test_concurrent_adds_and_reads(self) -> None:
        conv = cc.Conversation(policy="lenient")
        writers, per_writer = 4, 250
        start = threading.Barrier(writers + 2)
        seen: list[int] = []

        def write(n: int) -> None:
            start.wait()
            for i in range(per_writer):
                conv.add(cc.user(f"{n}:{i}"))

        def read() -> None:
            start.wait()
            previous: tuple[cc.Message, ...] = ()
            while len(previous) < writers * per_writer:
                snap = conv.messages
                assert snap[: len(previous)] == previous  # snapshots only grow
                previous = snap
                seen.append(len(snap))

        threads = [threading.Thread(target=write, args=(n,)) for n in range(writers)]
        threads += [threading.Thread(target=read) for _ in range(2)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert len(conv) == writers * per_writer
        contents = [m.content for m in conv]
        for n in range(writers):  # each writer's messages keep their order
            mine = [c for c in contents if isinstance(c, str) and c.startswith(f"{n}:")]
            assert mine == [f"{n}:{i}" for i in range(per_writer)]
        assert seen

    def test_concurrent_strict_adds_keep_the_order_valid(self) -> None:
        conv = cc.Conversation([S])
        errors: list[cc.OrderingError] = []

        def turn() -> None:
            for _ in range(100):
                try:
                    conv.add(U)
                    conv.add(A)
                except cc.OrderingError as error:
                    errors.append(error)

        threads = [threading.Thread(target=turn) for _ in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert cc.validate(conv.messages) == []
        assert len(conv) + len(errors) == 1 + 800

    def test_mixed_operations_from_8_threads_lose_nothing(self) -> None:
        """Each thread adds, replaces, removes and reads its own messages."""
        conv = cc.Conversation(policy="lenient")
        threads_n, rounds = 8, 300
        start = threading.Barrier(threads_n)
        errors: list[BaseException] = []

        def work(n: int) -> None:
            start.wait()
            try:
                for i in range(rounds):
                    conv.add(cc.user(f"{n}:{i}", id=f"{n}:{i}"))
                    if i % 10 == 3:
                        conv.replace(f"{n}:{i}", cc.user(f"{n}:{i}!", id=f"{n}:{i}"))
                    if i % 10 == 7:
                        assert conv.remove(f"{n}:{i}").id == f"{n}:{i}"  # type: ignore[union-attr]
                    if i % 50 == 11:
                        call = cc.tool_call(f"{n}:{i}:c", "run", {})
                        conv.add(cc.assistant(tool_calls=[call], id=f"{n}:{i}:a"))
                        conv.set_approval(f"{n}:{i}:c", "denied")
                    snap = conv.messages
                    assert len(conv) >= 1
                    assert conv[-1] is not None
                    assert conv.last is not None
                    mine = [m.text for m in snap if m.text.startswith(f"{n}:")]
                    assert mine[-1].startswith(f"{n}:{i}") or i % 10 == 7
                    assert conv.get(f"{n}:0") is not None
            except BaseException as exc:  # a thread's failure fails the test below
                errors.append(exc)

        threads = [threading.Thread(target=work, args=(n,)) for n in range(threads_n)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert errors == []
        texts = [m.text for m in conv]
        calls_per_thread = len(range(11, rounds, 50))
        assert len(conv) == len(conv.records) == threads_n * (rounds * 9 // 10 + calls_per_thread)
        for n in range(threads_n):
            said = [conv.get(f"{n}:{i}:a") for i in range(11, rounds, 50)]
            assert [m.tool_calls[0].approval for m in said] == ["denied"] * calls_per_thread  # type: ignore[union-attr]
        for n in range(threads_n):
            mine = [t for t in texts if t.startswith(f"{n}:")]
            expected = [
                f"{n}:{i}!" if i % 10 == 3 else f"{n}:{i}" for i in range(rounds) if i % 10 != 7
            ]
            assert mine == expected
        assert all(conv.get(f"{n}:{i}") is not None for n in range(8) for i in (0, 3))


class TestReviewRegressions:
    """Cases found in review."""

    def test_length_and_index_agree_while_threads_add(self) -> None:
        conv = cc.Conversation(policy="lenient")
        conv.add(cc.user("first"))
        stop = threading.Event()
        errors: list[BaseException] = []

        def write() -> None:
            for i in range(2000):
                conv.add(cc.user(str(i)))
            stop.set()

        def read() -> None:
            try:
                while not stop.is_set():
                    conv[len(conv) - 1]
            except BaseException as exc:
                errors.append(exc)

        threads = [threading.Thread(target=write)] + [
            threading.Thread(target=read) for _ in range(3)
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert errors == []

    def test_copies_own_their_metadata(self) -> None:
        conv = cc.Conversation([S], metadata={"tags": ["a"]}, extras={"x": 1})
        clone = conv.copy()
        joined = conv.concat([U])
        assert joined.extras == {"x": 1}
        clone.metadata["tags"].append("b")  # type: ignore[index]
        assert conv.metadata == {"tags": ["a"]}

    def test_lists_of_mixed_messages_type_check(self) -> None:
        history = [cc.system("s"), cc.user("u")]  # inferred as list[BaseMessage]
        assert cc.validate(history) == []
        assert len(cc.Conversation(history)) == 2


class TestIdsAreTheCallers:
    """No id is made up for a message (docs/specification.md): decoders keep none, by-id
    operations work on the ids a caller gave."""

    DATA = Path(__file__).parent / "data" / "providers"

    @pytest.mark.parametrize("family", ["openai", "anthropic", "gemini", "ollama", "bedrock"])
    def test_decoders_invent_none(self, family: str) -> None:
        codec = cc.providers.get(family)
        for path in sorted((self.DATA / family / "request").glob("*.json")):
            body = path.read_bytes()
            try:
                first = codec.decode_request(body)
            except cc.ChatCodecError:
                continue
            assert all(m.id is None for m in first.messages), path.name
            assert codec.decode_request(body) == first  # two reads agree

    def test_by_id_on_the_ids_given(self) -> None:
        body = b'{"messages":[{"role":"user","content":"a"},{"role":"assistant","content":"b"}]}'
        request = cc.providers.get("openai").decode_request(body)
        conv = cc.Conversation(request.messages, policy="provider")
        assert conv.get("a") is None
        with pytest.raises(cc.NotFoundError):
            conv.remove("a")
        conv.add(cc.user("c", id="m3"))
        assert conv.get("m3") is conv[2]
        conv.replace("m3", cc.user("d", id="m3"))
        assert conv[2].text == "d"
        assert [m.id for m in conv] == [None, None, "m3"]
