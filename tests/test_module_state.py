"""No call changes anything module-level: the results of one call never depend on another.

A module-level value of a mutable type (a set, a dict, a list) that a call
changes makes every later call in the process depend on what came before:
one ordinary transcript validated under the ``provider`` policy once added to
a shared empty set, and from then on every history was refused. The tests
here run the policy cases in both orders around such transcripts, and
snapshot every module global (and class attribute) of every chatcodec module
before and after a broad set of public calls.
"""

from __future__ import annotations

import enum
import functools
import importlib
import itertools
import os
import pathlib
import pkgutil
import subprocess
import sys
import types
from collections.abc import Callable, Iterator
from typing import Any

import msgspec
import pytest

import chatcodec as cc
from chatcodec import providers
from chatcodec._validate import POLICIES

S = cc.system("s")
U = cc.user("u")
A = cc.assistant("a")
C1 = cc.assistant(tool_calls=[cc.tool_call("c1", "f", {})])
C2 = cc.assistant(tool_calls=[cc.tool_call("c2", "f", {})])
R1 = cc.tool_result("c1", "r")
R2 = cc.tool_result("c2", "r")

# Transcripts that once changed a module-level set (an assistant message
# without calls, then one with calls, then the result: a "joined" turn).
POISONS = ([U, A, C1, R1], [S, U, A, C1, R1], [U, A, C1, C2, R1, R2], [U, A, A, C1, R1, U])

# Histories every policy takes, whatever ran before.
VALID = ([S, U], [S, U, A], [S, U, C1, R1, A], [S, U, C1, R1, U, C2, R2])


def _histories() -> Iterator[list[Any]]:
    alphabet = (S, U, A, C1, C2, R1, R2)
    for size in range(1, 5):
        for history in itertools.product(alphabet, repeat=size):
            yield list(history)
    yield from (list(p) for p in POISONS)


def _outcome(history: list[Any], policy: cc.Policy) -> tuple[Any, ...]:
    problems = cc.validate(history, policy=policy, collect=True)
    try:
        cc.Conversation(history, policy=policy)
        conversation = "ok"
    except cc.OrderingError as exc:
        conversation = exc.rule
    return (*((p.path, p.rule) for p in problems), conversation)


class TestPolicyCasesInAnyOrder:
    """The policy cases give the same answers in either order, before and after any transcript."""

    @pytest.mark.parametrize("policy", POLICIES)
    def test_both_orders(self, policy: cc.Policy) -> None:
        cases = list(_histories())
        forward = [_outcome(h, policy) for h in cases]
        backward = [_outcome(h, policy) for h in reversed(cases)][::-1]
        again = [_outcome(h, policy) for h in cases]
        assert forward == backward == again

    def test_poisons_then_valid_histories(self) -> None:
        for poison, policy in itertools.product(POISONS, POLICIES):
            cc.validate(poison, policy=policy, collect=True)
        for history, policy in itertools.product(VALID, POLICIES):
            assert cc.validate(history, policy=policy, collect=True) == []
            cc.Conversation(history, policy=policy)

    def test_valid_histories_then_poisons(self) -> None:
        for history, policy in itertools.product(VALID, POLICIES):
            assert cc.validate(history, policy=policy) == []
        for poison in POISONS:
            assert cc.validate(poison, policy="provider") == []
            conversation = cc.Conversation(policy="provider")
            conversation.extend(poison)
        for history, policy in itertools.product(VALID, POLICIES):
            assert cc.validate(history, policy=policy) == []


# -- every module global, before and after ---------------------------------------

# Deliberate caches: each is bounded and maps a key to what the call would compute
# anyway, so it cannot change a result. Named here, each with its reason; any other
# module-level value that changes during a call fails the test.
CACHES = {
    "chatcodec._convert._codecs": "providers.get by name; at most 64 names",
    "chatcodec._convert._pairs": "each pair asked: its codecs and direct path; at most 256 pairs",
    "chatcodec.providers._profiles._FOUND": "each (family, model) looked up; cleared at 1024",
    "chatcodec._schema._FROZEN_SCHEMAS": "frozen schemas by their JSON; cleared at 256",
    "chatcodec._tools._GOOD_NAMES": "tool names that passed the name rule; at most 4096",
    "chatcodec.providers._direct._anthropic._WRITTEN": "a tool array written once; bounded",
    "chatcodec.providers._direct._bedrock._WRITTEN": "a tool array written once; bounded",
    "chatcodec.providers._direct._cohere._WRITTEN": "a tool array written once; bounded",
    "chatcodec.providers._direct._from_bedrock._TOOLS": "a tool array checked once; bounded",
    "chatcodec.providers._direct._from_gemini._TOOLS": "a tool array checked once; bounded",
    "chatcodec.providers._direct._gemini._WRITTEN": "a tool array written once; bounded",
    "chatcodec.providers._direct._ollama._WRITTEN": "a tool array written once; bounded",
    "chatcodec.providers._direct._openai._WRITTEN": "a tool array written once; bounded",
    "chatcodec.providers._direct._responses._WRITTEN": "a tool array written once; bounded",
    "chatcodec.providers._direct._source._KEPT_LOSSES": "kept keys' losses found once; bounded",
    "chatcodec.providers._direct._source._TOOLS": "a tool array checked once; bounded",
    "chatcodec.providers._direct._source._TOOL_LOSSES": "a tool array's losses found once; bounded",
    "chatcodec.providers._direct._source_anthropic._TOOLS": "a tool array checked once; bounded",
    "chatcodec.providers._direct._source_responses._TOOLS": "a tool array checked once; bounded",
    "chatcodec.providers._stream_writer._FINISHES": "finish bodies by family; at most 256",
    "chatcodec.providers.anthropic._encode_parts.WIRE_IDS": "wire_id's answers; cleared at 4096",
    "chatcodec.providers.anthropic._encode_turns.WIRE_IDS": "the same dict, imported",
}


def _modules() -> list[types.ModuleType]:
    for info in pkgutil.walk_packages(cc.__path__, "chatcodec."):
        if info.name.endswith(("dask", "_dask_command")):
            continue  # optional extras
        try:
            importlib.import_module(info.name)
        except ImportError:
            continue
    return [m for name, m in sorted(sys.modules.items()) if name.startswith("chatcodec")]


def _state(value: Any, seen: set[int]) -> Any:
    """A plain, comparable picture of ``value``, through every container and record."""
    if isinstance(value, str | bytes | int | float | bool | type(None) | enum.Enum):
        return value
    if id(value) in seen:
        return "<seen>"
    seen = seen | {id(value)}
    if isinstance(value, dict | types.MappingProxyType):
        return (
            "dict",
            type(value).__name__,
            [(repr(k), _state(v, seen)) for k, v in value.items()],
        )
    if isinstance(value, list | tuple):
        return (type(value).__name__, [_state(v, seen) for v in value])
    if isinstance(value, set | frozenset):
        return (type(value).__name__, sorted(repr(v) for v in value))
    if isinstance(value, msgspec.Struct):
        fields = msgspec.structs.fields(value)
        return (type(value).__name__, [_state(getattr(value, f.name), seen) for f in fields])
    if isinstance(value, bytearray):
        return bytes(value)
    return ("object", type(value).__qualname__)


# What the enum and NamedTuple machinery keeps on a class.
_MACHINERY = frozenset({"_field_defaults", "_value2member_map_", "_unhashable_values_"})


def _snapshot() -> dict[str, Any]:
    found: dict[str, Any] = {}
    for module in _modules():
        for name, value in vars(module).items():
            if name.startswith("__"):
                continue
            where = f"{module.__name__}.{name}"
            if where in CACHES or isinstance(value, types.ModuleType):
                continue
            if isinstance(value, type):
                if value.__module__ != module.__name__:
                    continue
                for attr, member in vars(value).items():
                    if attr.startswith(("__", "_member")) or attr in _MACHINERY:
                        continue  # the enum and NamedTuple machinery's own
                    found[f"{where}.{attr}"] = _state(member, set())
                continue
            if callable(value):
                continue
            found[where] = _state(value, set())
    return found


def _mutable_globals() -> list[str]:
    mutable = (dict, list, set, bytearray)
    return [
        f"{module.__name__}.{name}"
        for module in _modules()
        for name, value in vars(module).items()
        if not name.startswith("__") and type(value) in mutable
    ]


def _request() -> cc.Request:
    tool = cc.ToolDefinition(
        "f",
        "a tool",
        {"type": "object", "properties": {"x": {"type": "string"}}, "required": ["x"]},
    )
    return cc.Request(
        messages=(S, U, C1, R1, A, cc.user("again")),
        model="m",
        max_tokens=16,
        tools=(tool,),
    )


def _response() -> cc.Response:
    message = cc.assistant("hi", tool_calls=[cc.tool_call("c1", "f", {"x": "y"})])
    return cc.Response(
        choices=(cc.Choice(message=message, finish_reason=cc.FinishReason.TOOL_CALLS),),
        model="m",
        id="r1",
        usage=cc.Usage(prompt_tokens=3, completion_tokens=2),
    )


def _public_calls() -> Iterator[Callable[[], object]]:
    for poison, policy in itertools.product(POISONS + VALID, POLICIES):
        yield functools.partial(cc.validate, poison, policy=policy, collect=True)

    def conversation() -> None:
        for policy in POLICIES:
            c = cc.Conversation([S, U], policy=policy)
            c.add(C1)
            c.add(R1)
            c.extend([A, cc.user("more")])
            copy = c.copy()
            copy.concat([A])
            c.to_transcript()
            c.pretty()
            c.estimate_tokens()

    yield conversation
    request, response = _request(), _response()
    names = providers.NAMES
    for source in names:
        codec = providers.get(source)
        body = codec.encode_request(request, losses=[])
        reply = codec.encode_response(response, losses=[])
        stream = codec.encode_stream(codec.decode_response(reply), losses=[])
        yield functools.partial(codec.check_request, codec.decode_request(body))
        for target in names:
            yield functools.partial(cc.convert, body, source=source, target=target, max_tokens=8)
            yield functools.partial(
                cc.convert, reply, source=source, target=target, kind="response"
            )

            def translate(s: str = source, t: str = target, data: bytes = stream) -> None:
                translator = cc.translate_stream(s, t)
                for i in range(0, len(data), 7):
                    translator.feed(data[i : i + 7])
                translator.finish()

            yield translate

        def decode(codec: Any = codec, data: bytes = stream) -> None:
            decoder = codec.stream()
            decoder.feed(data)
            decoder.finish()

        yield decode


def check_public_calls() -> None:
    """Snapshot, run every call forward and back, snapshot again: nothing may differ.

    Run in a fresh interpreter (see the test below), so that what an earlier
    test in this process did cannot hide a change.
    """
    before = _snapshot()
    calls = list(_public_calls())
    for call in itertools.chain(calls, reversed(calls)):
        call()
    after = _snapshot()
    changed = sorted(k for k in before.keys() | after.keys() if before.get(k) != after.get(k))
    assert changed == [], changed


class TestModuleGlobals:
    """Every module global of every chatcodec module is the same after any public call."""

    def test_no_mutable_global_but_the_named_caches(self) -> None:
        assert sorted(set(_mutable_globals())) == sorted(CACHES)

    def test_public_calls_change_nothing(self) -> None:
        here = pathlib.Path(__file__).parent
        script = "import test_module_state as t; t.check_public_calls()"
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(here), *sys.path])}
        done = subprocess.run(
            [sys.executable, "-c", script], env=env, capture_output=True, text=True, check=False
        )
        assert done.returncode == 0, done.stderr[-3000:]

    def test_calls_in_this_process_change_nothing(self) -> None:
        check_public_calls()
