"""Real recorded requests through lenient decoding: nothing raises, nothing is lost silently.

The message lists of OpenAI-format requests (OpenAI, Groq, Mistral, OpenRouter...) are the
most common "real transcripts". Their wire details belong to the provider codecs; here the
canonical codec must take them leniently: keep what fits, report the rest, never crash.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

import pytest

import chatcodec as cc
from corpus_root import CORPUS, HAVE_CORPUS, NO_CORPUS

HERE = Path(__file__).parent
CURATED = sorted((HERE / "data" / "corpus").glob("*.json"))


def corpus_requests() -> list[Path]:
    if not HAVE_CORPUS:
        return []
    with (CORPUS / "MANIFEST.tsv").open() as f:
        rows = csv.DictReader(f, delimiter="\t")
        return [
            CORPUS / r["path"] for r in rows if r["api"] == "openai-chat" and r["kind"] == "request"
        ]


def check_lenient(messages: list[Any]) -> tuple[list[cc.Message], list[cc.Problem]]:
    value, problems = cc.decode_lenient(json.dumps(messages).encode())
    skipped = {p.path.split("]")[0] + "]" for p in problems if p.severity == "error"}
    assert len(value) + len(skipped) == len(messages), "a message was dropped without a report"
    for message in value:
        assert cc.decode(cc.encode(message)) == message
        assert cc.decode(cc.encode(message, format="msgpack"), format="msgpack") == message
    kept_raw = [m for i, m in enumerate(messages) if f"$[{i}]" not in skipped]
    for raw, message in zip(kept_raw, value, strict=True):
        assert message.role == raw["role"].lower()
        if isinstance(message, cc.AssistantMessage):
            check_calls(raw, message)
    if not skipped:
        assert cc.validate(value, policy="lenient", collect=True) == []
    return value, problems


def check_calls(raw: dict[str, Any], message: cc.AssistantMessage) -> None:
    sent = {c["id"]: c["function"]["arguments"] for c in raw.get("tool_calls") or []}
    for call in message.tool_calls:
        assert bytes(call.arguments) == sent[call.id].encode()  # byte for byte
    for bad in message.invalid_tool_calls:
        assert bad.id is not None
        assert bad.arguments == sent[bad.id]  # kept verbatim
    assert len(message.tool_calls) + len(message.invalid_tool_calls) == len(sent)


@pytest.mark.parametrize("path", CURATED, ids=lambda p: p.stem[:60])
def test_curated_requests(path: Path) -> None:
    check_lenient(json.loads(path.read_bytes())["messages"])


def test_curated_cases_show_what_they_were_chosen_for() -> None:
    by_name = {p.name: json.loads(p.read_bytes())["messages"] for p in CURATED}
    value, problems = check_lenient(
        by_name["openai__langchaingo__agents__TestOpenAIFunctionsAgentWithHTTPRR__01.json"]
    )
    invalid = [c for m in value if isinstance(m, cc.AssistantMessage) for c in m.invalid_tool_calls]
    assert [c.error for c in invalid] == ["arguments are not valid JSON"]
    value, _ = check_lenient(
        by_name["openai__pydantic-ai__test_dbos__test_multiple_agents__02.json"]
    )
    parallel = [m for m in value if isinstance(m, cc.AssistantMessage) and len(m.tool_calls) >= 2]
    assert parallel
    assert parallel[0].content is None
    _, problems = check_lenient(
        by_name[
            "mistral__pydantic-ai__models__test_multimodal_tool_returns__test_multimodal_tool_return_matrix_direct-url-image-mistral__01.json"
        ]
    )
    # OpenAI's part shapes are no canonical kind: kept verbatim, with a warning.
    assert any(
        p.severity == "warning" and p.rule.startswith("a part of a kind this version")
        for p in problems
    )


@pytest.mark.skipif(not corpus_requests(), reason=NO_CORPUS)
def test_whole_corpus() -> None:
    paths = corpus_requests()
    assert len(paths) > 400
    kept = total = 0
    for path in paths:
        messages = json.loads(path.read_bytes())["messages"]
        value, _ = check_lenient(messages)
        kept, total = kept + len(value), total + len(messages)
    assert kept / total > 0.9
