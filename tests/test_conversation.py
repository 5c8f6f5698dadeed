from __future__ import annotations

import copy
import pickle
import threading

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
