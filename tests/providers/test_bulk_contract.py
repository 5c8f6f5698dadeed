"""The bulk output contract: a zero exit status means every record is one line the target accepts.

Through the installed command, for every family pair and kind, with one and
two processes, on recorded records (the curated copies, and the whole corpus
where it is beside the project) and generated ones: pretty-printed JSON in
tool-call arguments and tool results, Gemini's URL-safe base64, records of
another family and records that hold nothing. For each run:

- every output line is one JSON value, and no line is blank;
- output lines + failed lines + refused lines = input lines;
- the exit status is 0 exactly when nothing failed or was refused;
- one and two processes write the same bytes;
- every written record is accepted by the target's official types (the
  openai, anthropic, google-genai and ollama SDKs, botocore's service model);
- ``chatcodec validate`` finds no error in what was written.
"""

from __future__ import annotations

import base64
import functools
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from corpus import DATA, corpus

import chatcodec as cc
from chatcodec.bulk._inspect import validate_lines
from official import check_batch_request, check_request, check_response

FAMILIES = cc.providers.NAMES
BATCHED = ("openai", "openai-responses", "anthropic", "gemini", "bedrock")
MODELS = {
    "openai": "gpt-4o",
    "openai-responses": "gpt-4o",
    "anthropic": "claude-sonnet-4-5",
    "gemini": "gemini-2.5-flash",
    "ollama": "llama3.2",
    "bedrock": "anthropic.claude-3-5-sonnet-20240620-v1:0",
    "cohere": "command-a-03-2025",
}
PRETTY = '{\n  "city": "Paris",\n  "days": [\n    1,\n    2\n  ]\n}'
PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
)


def one_line(path: Path) -> bytes:
    return json.dumps(json.loads(path.read_bytes()), separators=(",", ":")).encode()


def generated_request(family: str) -> bytes:
    """A tool loop whose arguments and result are pretty-printed JSON, with an image."""
    call = cc.tool_call("call_1", "get_weather", PRETTY)
    request = cc.Request(
        (
            cc.user(
                [
                    "What is this and the weather?",
                    cc.ImagePart(data=base64.b64encode(PNG).decode(), media_type="image/png"),
                ]
            ),
            cc.assistant(tool_calls=[call]),
            cc.tool_result("call_1", PRETTY),
        ),
        tools=(
            cc.ToolDefinition(
                "get_weather",
                "The weather",
                {"type": "object", "properties": {"city": {"type": "string"}}},
            ),
        ),
        model=MODELS[family],
        max_tokens=256,
    )
    body = cc.providers.get(family).encode_request(request)
    return json.dumps(json.loads(body), separators=(",", ":")).encode()


def url_safe_gemini() -> bytes:
    """A Gemini request whose image is in the URL-safe base64 alphabet, as Gemini takes it."""
    data = base64.urlsafe_b64encode(b"\xfb\xff\xfe" * 40 + PNG).decode()
    assert "-" in data or "_" in data
    return json.dumps(
        {
            "contents": [
                {
                    "role": "user",
                    "parts": [
                        {"text": "Describe"},
                        {"inlineData": {"mimeType": "image/png", "data": data}},
                    ],
                }
            ]
        }
    ).encode()


NOTHING = b'{"hello":"world"}'


@functools.cache
def records(family: str, kind: str) -> tuple[bytes, ...]:
    """Recorded bodies of a family and kind (curated, and the corpus), one line each."""
    paths = sorted((DATA / family / kind).glob("*.json"))
    paths += [param.values[0] for param in corpus(family, kind)]
    out = [one_line(path) for path in paths]
    if kind == "request":
        out.append(generated_request(family))
        if family == "gemini":
            out.append(url_safe_gemini())
        out.insert(1, NOTHING)  # not first: the first record tells the family
    return tuple(out)


def batch_lines(family: str) -> list[bytes]:
    """The recorded requests of a family in its own batch envelope (or OpenAI's)."""
    if family == "bedrock":
        bodies = [b for b in records("anthropic", "request") if b != NOTHING]
    else:
        bodies = list(records(family, "request"))
    lines = []
    for i, body in enumerate(bodies):
        raw = json.loads(body)
        ident = f"req-{i}"
        line: dict[str, Any] = {
            "openai": {
                "custom_id": ident,
                "method": "POST",
                "url": "/v1/chat/completions",
                "body": raw,
            },
            "openai-responses": {
                "custom_id": ident,
                "method": "POST",
                "url": "/v1/responses",
                "body": raw,
            },
            "anthropic": {"custom_id": ident, "params": raw},
            "gemini": {"key": ident, "request": raw},
            "bedrock": {
                "recordId": ident,
                "modelInput": {"anthropic_version": "bedrock-2023-05-31", **raw},
            },
        }[family]
        lines.append(json.dumps(line, separators=(",", ":")).encode())
    return lines


def run(
    source: str, target: str, kind: str, lines: list[bytes], tmp: Path, jobs: str
) -> tuple[int, bytes, dict[str, Any]]:
    given = tmp / "in.jsonl"
    given.write_bytes(b"\n".join(lines) + b"\n")
    out, summary = tmp / f"out{jobs}.jsonl", tmp / f"summary{jobs}.json"
    argv = [
        *("convert", "--from", source, "--to", target, "--kind", kind, str(given), str(out)),
        *("--model", MODELS[target], "--max-tokens", "1024", "--quiet", "--jobs", jobs),
        *("--summary-json", str(summary), "--errors", str(tmp / f"errors{jobs}.jsonl")),
    ]
    done = subprocess.run(
        [sys.executable, "-m", "chatcodec", *argv], capture_output=True, timeout=600, check=False
    )
    assert done.returncode in (0, 1), done.stderr
    return done.returncode, out.read_bytes(), json.loads(summary.read_bytes())


def holds(source: str, target: str, kind: str, lines: list[bytes], tmp: Path) -> None:
    """The contract, for one input through ``convert`` with one and with two processes."""
    status, written, counts = run(source, target, kind, lines, tmp, "1")
    status2, written2, _ = run(source, target, kind, lines, tmp, "2")
    assert (status2, written2) == (status, written)
    out = written.split(b"\n")
    assert out[-1] == b""  # every record ends with its line break
    out = out[:-1]
    for line in out:
        json.loads(line)  # each line one JSON value
    assert all(line.strip() for line in out)
    assert len(out) + counts["failed"] + counts["refused"] == len(lines)
    assert status == (1 if counts["failed"] or counts["refused"] or counts["duplicate_ids"] else 0)
    dropped = {
        problem["line"]
        for problem in map(json.loads, (tmp / "errors1.jsonl").read_bytes().splitlines())
        if problem["severity"] == "error"
    }
    sources = [line for number, line in enumerate(lines, 1) if number not in dropped]
    assert len(sources) == len(out)
    check = {"batch": check_batch_request, "request": check_request}.get(kind, check_response)
    for before, record in zip(sources, out, strict=True):
        if source == target and not accepted(check, source, before):
            continue  # within a family, a body is written back as it came
        check(target, record)
    if kind != "response":
        checked, _ = validate_lines(out, source=target, kind=kind, policy="provider")  # type: ignore[arg-type]
        assert checked.failed == 0, checked.problems[:3]


def accepted(check: Any, family: str, record: bytes) -> bool:
    try:
        check(family, record)
    except (AssertionError, ValueError):  # pydantic's ValidationError is a ValueError
        return False
    return True


PAIRS = [(s, t) for s in FAMILIES for t in FAMILIES]


class TestRequests:
    """Requests of every family to every family."""

    @pytest.mark.parametrize(("source", "target"), PAIRS)
    def test_contract(self, source: str, target: str, tmp_path: Path) -> None:
        holds(source, target, "request", list(records(source, "request")), tmp_path)


class TestResponses:
    """Responses of every family to every family."""

    @pytest.mark.parametrize(("source", "target"), PAIRS)
    def test_contract(self, source: str, target: str, tmp_path: Path) -> None:
        holds(source, target, "response", list(records(source, "response")), tmp_path)


class TestBatches:
    """Batch input files of every family with one to every family with one."""

    @pytest.mark.parametrize(("source", "target"), [(s, t) for s in BATCHED for t in BATCHED])
    def test_contract(self, source: str, target: str, tmp_path: Path) -> None:
        holds(source, target, "batch", batch_lines(source), tmp_path)


class TestShippedData:
    """What ``make run`` converts passes the same contract."""

    @pytest.mark.parametrize("target", ["anthropic", "gemini", "bedrock", "openai-responses"])
    def test_batch_file(self, target: str, tmp_path: Path) -> None:
        lines = (
            Path(__file__).parents[1] / "data" / "bulk" / "openai-batch-input.jsonl"
        ).read_bytes()
        holds("openai", target, "batch", lines.splitlines(), tmp_path)
