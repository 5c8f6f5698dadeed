from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import pytest

import chatcodec as cc
from chatcodec.cli import main


def run(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    return main(list(argv), out=out), out.getvalue()


class TestDemo:
    """The default command runs the bundled sample through every step."""

    def test_demo(self) -> None:
        status, text = run()
        assert status == 0
        assert "read         8 messages" in text
        assert "strict ordering holds" in text
        assert "json: 1,260 bytes, equal after decode: True" in text
        assert "msgpack:" in text
        assert text.count("equal after decode: True") == 2
        for name in ("openai", "ollama", "anthropic", "gemini"):
            line = next(
                line for line in text.splitlines() if line.startswith(f"provider     {name}:")
            )
            assert "8 messages and 2 tool calls read back, 0 preflight errors" in line
        assert '5 events, get_forecast({"city": "Paris"}), finish tool_calls' in text
        assert "a spoofed assistant message was refused: role must be user" in text
        assert "[4] tool (call_oslo error): forecast service timed out" in text
        assert run("demo") == (status, text)

    def test_module_entry_point(self) -> None:
        done = subprocess.run(
            [sys.executable, "-m", "chatcodec"], capture_output=True, text=True, check=True
        )
        assert "round trip" in done.stdout


class TestCheck:
    """check validates a JSONL file and reports by line, path and rule."""

    def test_valid_file(self, tmp_path: Path) -> None:
        path = tmp_path / "ok.jsonl"
        with path.open("wb") as f:
            cc.write_jsonl(f, [cc.system("s"), cc.user("u"), cc.assistant("a")])
        status, text = run("check", str(path), "--policy", "strict")
        assert status == 0
        assert text.endswith("3 messages, 0 errors, 0 warnings\n")

    def test_problems(self, tmp_path: Path) -> None:
        path = tmp_path / "bad.jsonl"
        path.write_bytes(
            b'{"role":"user","content":"a"}\n{"role":"tool","tool_call_id":"x","content":"r"}\n'
        )
        status, text = run("check", str(path), "--policy", "lenient")
        assert status == 1
        assert "error: tool message must answer a tool call made earlier - at line 2, `$`" in text

    def test_the_policy_defaults_as_validate_does(self, tmp_path: Path) -> None:
        messages: list[cc.Message] = [cc.user("a"), cc.assistant("b"), cc.user("c")]
        path = tmp_path / "no_system.jsonl"
        with path.open("wb") as f:
            cc.write_jsonl(f, messages)
        found = cc.validate(messages, collect=True)
        status, text = run("check", str(path))
        assert status == 1
        assert [line for line in text.splitlines() if ": error: " in line] == [
            f"{path}: error: {found[0].rule} - at line 1, `$`"
        ]
        status, text = run("check", str(path), "--policy", "provider")
        assert status == 0

    def test_strict_reading_stops_at_the_first_bad_line(self, tmp_path: Path) -> None:
        path = tmp_path / "bad.jsonl"
        path.write_bytes(b'{"role":"user","content":"a"}\n{"role":"User","content":"b"}\n')
        status, text = run("check", str(path))
        assert status == 1
        assert "line 2: role must be one of" in text
        status, text = run("check", str(path), "--lenient", "--policy", "lenient")
        assert status == 0
        assert "warning: role was not lowercase - at line 2, `$.role`" in text
        assert "2 messages, 0 errors, 1 warnings" in text

    def test_missing_file(self, tmp_path: Path) -> None:
        status, text = run("check", str(tmp_path / "none.jsonl"))
        assert status == 2
        assert "cannot read" in text

    def test_version(self, capsys: pytest.CaptureFixture[str]) -> None:
        with pytest.raises(SystemExit):
            main(["--version"])
        assert capsys.readouterr().out.strip() == f"chatcodec {cc.__version__}"
