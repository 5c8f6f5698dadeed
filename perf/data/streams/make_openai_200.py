"""Write ``openai_200.sse``: a 200-chunk OpenAI stream with 2 parallel tool calls.

The chunks are shaped as OpenAI sends them with ``stream_options.include_usage``
(see the corpus stream ``pydantic-ai__test_dbos__test_complex_agent_run_in_workflow__00``):
``id``, ``object``, ``created``, ``model``, ``service_tier``,
``system_fingerprint``, ``usage: null``, ``choices`` and the ``obfuscation``
padding. The first chunk gives the role; each call starts with its id, type,
name and empty arguments, then its argument text arrives in fragments of 3 to
10 characters (``index`` only), call 0 first, then call 1, as OpenAI sends
parallel calls; then a chunk with ``finish_reason: "tool_calls"``, a usage
chunk with ``choices: []``, and ``data: [DONE]``.

Deterministic: the same bytes on every run (a seeded generator). The file is
checked in so that runs compare; run this again only to change the stream.

Usage: python perf/data/streams/make_openai_200.py
"""

from __future__ import annotations

import hashlib
import json
import random
from pathlib import Path
from typing import Any

OUT = Path(__file__).with_name("openai_200.sse")
CHUNKS = 200
ID = "chatcmpl-D4x7Qk2LmW9sTzB1nRvE8aYcUfHgJ"
MODEL = "gpt-4o-2024-08-06"
CREATED = 1767225600
FINGERPRINT = "fp_07871e2ad8"

CALLS: list[tuple[str, str, dict[str, Any]]] = [
    (
        "call_kR8vX2mQpL4nT7wY1zB3cD5e",
        "write_file",
        {
            "path": "docs/release-notes/2.4.md",
            "content": (
                "# Release 2.4\n\n"
                "## Highlights\n\n"
                "- Streaming decoders for every provider family, sans-IO.\n"
                '- Tool calls keep the bytes of their arguments; "previews" parse them early.\n'
                "- Café-grade error messages: every problem names its JSON path.\n\n"
                "## Fixes\n\n"
                "- A character split between two network reads is joined before decoding.\n"
                "- Usage chunks with `choices: []` no longer end the stream early.\n"
            ),
            "overwrite": True,
            "mode": "0644",
        },
    ),
    (
        "call_Hq3sW9eR6tY2uI8oP1aS4dF7",
        "search_issues",
        {
            "repository": "example-org/chat-gateway",
            "query": "stream decoder tool_calls arguments truncated after reconnect",
            "labels": ["bug", "streaming", "needs-triage"],
            "state": "open",
            "created_after": "2025-11-01T00:00:00Z",
            "sort": {"field": "updated", "order": "desc"},
            "limit": 25,
            "include_comments": False,
            "fields": ["number", "title", "labels", "assignees", "updated_at"],
            "author": None,
            "min_reactions": 2,
            "milestone": "2.5",
            "exclude_labels": ["wontfix", "duplicate"],
        },
    ),
]


def fragments(text: str, count: int, rng: random.Random) -> list[str]:
    """``text`` cut into ``count`` pieces of 3 to 10 characters."""
    if not 3 * count <= len(text) <= 10 * count:
        raise SystemExit(f"{len(text)} characters do not make {count} fragments of 3-10")
    sizes = [rng.randint(3, 10) for _ in range(count)]
    while (excess := sum(sizes) - len(text)) != 0:
        k = rng.randrange(count)
        if excess > 0 and sizes[k] > 3:
            sizes[k] -= 1
        elif excess < 0 and sizes[k] < 10:
            sizes[k] += 1
    out, at = [], 0
    for size in sizes:
        out.append(text[at : at + size])
        at += size
    return out


def padding(n: int) -> str:
    """The ``obfuscation`` field: a few characters of noise, deterministic."""
    digest = hashlib.sha256(str(n).encode()).hexdigest()
    return digest[: 4 + n % 10]


def chunk(n: int, choices: list[Any], usage: Any = None) -> dict[str, Any]:
    return {
        "id": ID,
        "object": "chat.completion.chunk",
        "created": CREATED,
        "model": MODEL,
        "service_tier": "default",
        "system_fingerprint": FINGERPRINT,
        "usage": usage,
        "choices": choices,
        "obfuscation": padding(n),
    }


def choice(delta: dict[str, Any], finish_reason: str | None = None) -> list[Any]:
    return [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish_reason}]


def build() -> bytes:
    rng = random.Random(20260101)
    texts = [json.dumps(args, ensure_ascii=False, separators=(",", ":")) for _, _, args in CALLS]
    # role + one start per call + the fragments + finish + usage = CHUNKS
    total = CHUNKS - 2 - len(CALLS) - 1
    counts = [total - total // 2, total // 2]
    chunks = [chunk(0, choice({"role": "assistant", "content": None, "refusal": None}))]
    for index, ((call_id, name, _), text, count) in enumerate(
        zip(CALLS, texts, counts, strict=True)
    ):
        start = {"index": index, "id": call_id, "type": "function"}
        start["function"] = {"name": name, "arguments": ""}
        chunks.append(chunk(len(chunks), choice({"tool_calls": [start]})))
        for piece in fragments(text, count, rng):
            delta = {"tool_calls": [{"index": index, "function": {"arguments": piece}}]}
            chunks.append(chunk(len(chunks), choice(delta)))
    chunks.append(chunk(len(chunks), choice({}, "tool_calls")))
    usage = {
        "prompt_tokens": 412,
        "completion_tokens": 287,
        "total_tokens": 699,
        "prompt_tokens_details": {"cached_tokens": 0, "audio_tokens": 0},
        "completion_tokens_details": {
            "reasoning_tokens": 0,
            "audio_tokens": 0,
            "accepted_prediction_tokens": 0,
            "rejected_prediction_tokens": 0,
        },
    }
    last = chunk(len(chunks), [], usage)
    chunks.append(last)
    if len(chunks) != CHUNKS:
        raise SystemExit(f"made {len(chunks)} chunks, not {CHUNKS}")
    lines = [
        b"data: " + json.dumps(c, ensure_ascii=False, separators=(",", ":")).encode()
        for c in chunks
    ]
    return b"\n\n".join([*lines, b"data: [DONE]"]) + b"\n\n"


def main() -> None:
    data = build()
    OUT.write_bytes(data)
    print(f"wrote {OUT.name}: {len(data)} bytes, {CHUNKS} chunks")


if __name__ == "__main__":
    main()
