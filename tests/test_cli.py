from __future__ import annotations

import gzip
import io
import json
import os
import pty
import signal
import subprocess
import sys
import time
from collections.abc import Callable
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


# The bulk commands, through the real entry point on temporary files.

BULK = Path(__file__).parent / "data" / "bulk"
BATCH = BULK / "openai-batch-input.jsonl"
FINETUNE = BULK / "openai-finetune.jsonl"
BAD = b'{"messages":[{"role":"wizard","content":"a secret sentence"}]}\n'


def chatcodec(
    *argv: str, input: bytes | None = None, cwd: Path | None = None
) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "chatcodec", *argv],
        input=input,
        capture_output=True,
        cwd=cwd,
        timeout=300,
        check=False,
    )


def jsonl(data: bytes) -> list[dict[str, object]]:
    return [json.loads(line) for line in data.splitlines() if line.strip()]


def _default_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _stopped_cleanly(
    process: subprocess.Popen[bytes],
    ready: Callable[[], bool],
    signum: int,
    folder: Path,
    *,
    group: bool = False,
    left: tuple[str, ...] = (),
) -> None:
    """Signal ``process`` (its group) once ``ready()``: it must stop as interrupted.

    Nothing it wrote may be left in ``folder``, which ends holding ``left``.
    """
    try:
        waited = 0
        while not ready() and waited < 3000:
            time.sleep(0.01)
            waited += 1
        assert ready()
        if group:
            os.killpg(process.pid, signum)
        else:
            process.send_signal(signum)
        _, err = process.communicate(timeout=60)
    finally:
        process.kill()
        process.communicate()
    assert process.returncode == 130, err
    assert b"interrupted" in err
    assert b"Traceback" not in err
    assert sorted(p.name for p in folder.iterdir()) == sorted(left)


def _catches(pid: int, signum: int) -> bool:
    """Whether process ``pid`` has a handler for ``signum`` (Linux's /proc)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    caught = next(line for line in status.splitlines() if line.startswith("SigCgt:"))
    return bool(int(caught.split()[1], 16) >> (signum - 1) & 1)


class TestConvertCommand:
    """chatcodec convert: files or pipes, compression, errors, exit status."""

    def test_batch_file_to_anthropic(self, tmp_path: Path) -> None:
        out = tmp_path / "claude.jsonl"
        done = chatcodec(
            "convert",
            "--from",
            "openai",
            "--to",
            "anthropic",
            str(BATCH),
            str(out),
            "--max-tokens",
            "512",
            "--keep-refused",
            "--jobs",
            "1",
        )
        assert done.returncode == 0, done.stderr
        records = jsonl(out.read_bytes())
        source = jsonl(BATCH.read_bytes())
        assert [r["custom_id"] for r in records] == [r["custom_id"] for r in source]
        assert all(r["params"]["max_tokens"] for r in records)  # type: ignore[index]
        summary = done.stderr.decode()
        assert "openai -> anthropic (batch)" in summary
        assert "300  lines" in summary
        assert "0  failed" in summary
        assert sorted(p.name for p in tmp_path.iterdir()) == ["claude.jsonl"]

    def test_stdin_to_stdout(self) -> None:
        body = FINETUNE.read_bytes().splitlines()[0] + b"\n"
        done = chatcodec(
            "convert", "--from", "openai", "--to", "gemini", "-", "-", "--quiet", input=body
        )
        assert done.returncode == 0
        assert list(jsonl(done.stdout)[0]) == ["contents"]

    def test_model_kind_and_summary_json(self, tmp_path: Path) -> None:
        summary = tmp_path / "summary.json"
        done = chatcodec(
            "convert",
            "--from",
            "openai",
            "--to",
            "anthropic",
            "--kind",
            "request",
            str(FINETUNE),
            str(tmp_path / "o.jsonl"),
            "--model",
            "claude-x",
            "--max-tokens",
            "99",
            "--summary-json",
            str(summary),
            "--quiet",
            "--keep-refused",
        )
        assert done.returncode == 0
        records = jsonl((tmp_path / "o.jsonl").read_bytes())
        assert {(r["model"], r["max_tokens"]) for r in records} == {("claude-x", 99)}
        counts = json.loads(summary.read_bytes())
        assert counts["lines"] == 300 == counts["converted"] + counts["lossy"] + counts["refused"]
        assert counts["refused"] == counts["kept_refused"] == 2  # lines 199 and 207
        assert counts["kind"] == "request"
        assert counts["kind_detected_from"] == "given"
        assert sum(counts["losses"].values()) > 0

    def test_compression(self, tmp_path: Path) -> None:
        zstandard = pytest.importorskip("zstandard")
        packed = tmp_path / "in.jsonl.gz"
        packed.write_bytes(gzip.compress(BATCH.read_bytes()))
        plain, zst = tmp_path / "plain.jsonl", tmp_path / "out.jsonl.zst"
        for source, target in ((BATCH, plain), (packed, zst)):
            done = chatcodec(
                "convert",
                "--from",
                "openai",
                "--to",
                "gemini",
                str(source),
                str(target),
                "--quiet",
                "--jobs",
                "1",
                "--keep-refused",
            )
            assert done.returncode == 0, done.stderr
        with zst.open("rb") as f:
            unpacked = zstandard.ZstdDecompressor().stream_reader(f).read()
        assert unpacked == plain.read_bytes()
        again = tmp_path / "again.jsonl.gz"
        done = chatcodec(
            *("convert", "--from", "gemini", "--to", "openai", str(zst), str(again), "--quiet"),
            *("--model", "gpt-4o", "--keep-refused"),
        )
        assert done.returncode == 0
        assert len(gzip.decompress(again.read_bytes()).splitlines()) == 300

    def test_zstd_input_of_several_frames_and_empty_compressed_output(self, tmp_path: Path) -> None:
        zstandard = pytest.importorskip("zstandard")
        lines = BATCH.read_bytes().splitlines(keepends=True)
        packer = zstandard.ZstdCompressor()
        source = tmp_path / "in.jsonl.zst"  # as pzstd writes it: a frame per block
        source.write_bytes(
            b"".join(packer.compress(b"".join(lines[k : k + 50])) for k in range(0, 300, 50))
        )
        done = chatcodec(
            *("convert", "--from", "openai", "--to", "gemini", str(source), "-", "--quiet"),
            "--keep-refused",
        )
        assert done.returncode == 0
        assert len(jsonl(done.stdout)) == 300
        empty = tmp_path / "empty.jsonl"
        empty.write_bytes(b"")
        for name in ("out.jsonl.gz", "out.jsonl.zst"):
            done = chatcodec(
                "convert", "--from", "openai", "--to", "gemini", str(empty), str(tmp_path / name)
            )
            assert done.returncode == 0
        assert gzip.decompress((tmp_path / "out.jsonl.gz").read_bytes()) == b""
        with (tmp_path / "out.jsonl.zst").open("rb") as f:
            assert zstandard.ZstdDecompressor().stream_reader(f).read() == b""

    def test_json_array_input(self, tmp_path: Path) -> None:
        records = jsonl(FINETUNE.read_bytes())[:5]
        array = tmp_path / "in.json"
        array.write_text(json.dumps(records, indent=2))
        done = chatcodec("convert", "--from", "openai", "--to", "gemini", str(array), "-")
        assert done.returncode == 0
        assert len(jsonl(done.stdout)) == 5
        done = chatcodec(
            "convert", "--from", "openai", "--to", "gemini", "-", "-", input=array.read_bytes()
        )
        assert len(jsonl(done.stdout)) == 5

    def test_lenient_errors_file_without_content(self, tmp_path: Path) -> None:
        source = tmp_path / "in.jsonl"
        lines = [x for x in FINETUNE.read_bytes().splitlines(keepends=True) if b"tool_calls" in x]
        lines = lines[:4]
        source.write_bytes(b"".join([lines[0], BAD, lines[1], b"\n", b"{oops\n", *lines[2:]]))
        out, errors = tmp_path / "out.jsonl", tmp_path / "errors.jsonl"
        done = chatcodec(
            "convert",
            "--from",
            "openai",
            "--to",
            "sharegpt",
            str(source),
            str(out),
            "--errors",
            str(errors),
        )
        assert done.returncode == 1
        assert len(jsonl(out.read_bytes())) == 4
        problems = jsonl(errors.read_bytes())
        failed = [p for p in problems if p["severity"] == "error"]
        assert [(p["line"], p["stage"]) for p in failed] == [(2, "convert"), (5, "convert")]
        assert all({"line", "path", "rule", "severity"} <= p.keys() for p in problems)
        assert any(p["stage"] == "loss" for p in problems)
        assert b"secret" not in errors.read_bytes()
        assert b"secret" not in done.stderr
        assert "2  failed" in done.stderr.decode()
        assert "1  blank" in done.stderr.decode()
        done = chatcodec(
            "convert",
            "--from",
            "openai",
            "--to",
            "sharegpt",
            str(source),
            str(out),
            "--errors",
            str(errors),
            "--include-content",
        )
        contents = [p.get("content") for p in jsonl(errors.read_bytes()) if p["line"] == 2]
        assert contents == [BAD.decode().strip()]

    def test_strict_stops_and_writes_nothing(self, tmp_path: Path) -> None:
        source = tmp_path / "in.jsonl"
        lines = FINETUNE.read_bytes().splitlines(keepends=True)
        source.write_bytes(b"".join([*lines[:10], BAD, *lines[10:]]))
        out, summary = tmp_path / "out.jsonl", tmp_path / "s.json"
        done = chatcodec(
            "convert",
            "--from",
            "openai",
            "--to",
            "gemini",
            str(source),
            str(out),
            "--strict",
            "--summary-json",
            str(summary),
            "--chunk-lines",
            "7",
            "--jobs",
            "2",
        )
        assert done.returncode == 1
        assert not out.exists()
        assert sorted(p.name for p in tmp_path.iterdir()) == ["in.jsonl", "s.json"]
        counts = json.loads(summary.read_bytes())
        assert counts["failed"] == 1
        assert counts["lines"] == 301
        assert counts["converted"] + counts["lossy"] + counts["unread"] == 300

    def test_jobs_keep_input_order(self, tmp_path: Path) -> None:
        one, two = tmp_path / "one.jsonl", tmp_path / "two.jsonl"
        for out, jobs in ((one, "1"), (two, "2")):
            done = chatcodec(
                "convert",
                "--from",
                "openai",
                "--to",
                "anthropic",
                str(BATCH),
                str(out),
                "--jobs",
                jobs,
                "--chunk-lines",
                "13",
                "--quiet",
                "--max-tokens",
                "64",
                "--keep-refused",
            )
            assert done.returncode == 0, done.stderr
        assert two.read_bytes() == one.read_bytes()

    @pytest.mark.parametrize(
        ("argv", "says"),
        [
            (["--from", "watsonx", "--to", "openai"], "no family named 'watsonx'"),
            (["--from", "openai", "--to", "gemini", "--jobs", "0"], "--jobs must be at least 1"),
            (["--from", "bedrock", "--to", "openai", "--kind", "sharegpt"], "--from sharegpt"),
            (["--from", "openai", "--to", "gemini", "--kind", "transcript"], "--from chatcodec"),
        ],
    )
    def test_usage_errors(self, tmp_path: Path, argv: list[str], says: str) -> None:
        done = chatcodec("convert", *argv, str(FINETUNE), str(tmp_path / "o.jsonl"))
        assert done.returncode == 2
        assert says in done.stderr.decode()
        assert not (tmp_path / "o.jsonl").exists()

    def test_missing_input_and_unknown_kind(self, tmp_path: Path) -> None:
        done = chatcodec(
            "convert", "--from", "openai", "--to", "gemini", str(tmp_path / "none.jsonl"), "-"
        )
        assert done.returncode == 2
        assert b"cannot read" in done.stderr
        done = chatcodec(
            "convert",
            "--from",
            "openai",
            "--to",
            "gemini",
            "-",
            "-",
            input=b'{"prompt":"secret","n":1}\n',
        )
        assert done.returncode == 2
        assert b"cannot tell the kind" in done.stderr
        assert b"keys n, prompt" in done.stderr
        assert b"secret" not in done.stderr
        done = chatcodec("convert", "--from", "openai")
        assert done.returncode == 2

    @pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
    def test_interrupted_run_leaves_no_output(self, tmp_path: Path, signum: int) -> None:
        out = tmp_path / "out.jsonl"
        process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "chatcodec",
                "convert",
                "--from",
                "openai",
                "--to",
                "gemini",
                "-",
                str(out),
                "--jobs",
                "1",
                "--chunk-lines",
                "1",
            ],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            # A job started in the background (`make test &`, nohup) ignores SIGINT, and
            # its children inherit that: give the command the disposition a terminal gives.
            preexec_fn=_default_sigint,
        )
        assert process.stdin is not None
        process.stdin.write(FINETUNE.read_bytes()[:20000])
        process.stdin.flush()

        def writing() -> bool:
            return bool(list(tmp_path.glob(".out.jsonl.*.part")))

        _stopped_cleanly(process, writing, signum, tmp_path)

    @pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads /proc")
    def test_terminated_before_the_output_is_made(self, tmp_path: Path) -> None:
        """A SIGTERM while the first record is awaited stops the run as Ctrl-C does."""
        out = tmp_path / "out.jsonl"
        argv = ["convert", "--from", "openai", "--to", "gemini", "-", str(out)]
        process = subprocess.Popen(
            [sys.executable, "-m", "chatcodec", *argv],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )

        def handled() -> bool:
            return _catches(process.pid, signal.SIGTERM)

        _stopped_cleanly(process, handled, signal.SIGTERM, tmp_path)

    @staticmethod
    def on_a_terminal(*argv: str) -> tuple[int, str]:
        """Run with stderr a terminal; return the status and what the terminal showed."""
        main_fd, child_fd = pty.openpty()
        done = subprocess.run(
            [sys.executable, "-m", "chatcodec", *argv],
            stderr=child_fd,
            stdout=subprocess.PIPE,
            timeout=300,
            check=False,
            env={**os.environ, "COLUMNS": "120"},
        )
        os.close(child_fd)
        shown = b""
        while True:
            try:
                data = os.read(main_fd, 65536)
            except OSError:
                break
            if not data:
                break
            shown += data
        os.close(main_fd)
        return done.returncode, shown.decode(errors="replace")

    def test_progress_and_table_on_a_terminal(self, tmp_path: Path) -> None:
        pytest.importorskip("rich")
        argv = ["convert", "--from", "openai", "--to", "gemini", str(BATCH), "--keep-refused"]
        argv += ["--jobs", "1"]
        status, text = self.on_a_terminal(*argv, str(tmp_path / "o.jsonl"))
        assert status == 0
        assert "300 records" in text  # the progress line
        assert "converted with losses" in text
        assert "━" in text  # rich's bar and table
        status, text = self.on_a_terminal(*argv, str(tmp_path / "q.jsonl"), "--quiet")
        assert status == 0
        assert "300 records" not in text
        assert "━" not in text
        assert "300  lines" in text  # the plain summary
        # Workers with the bar: forked before its thread starts, the same output.
        argv[-1] = "2"
        status, text = self.on_a_terminal(*argv, str(tmp_path / "w.jsonl"), "--chunk-lines", "50")
        assert status == 0
        assert "300 records" in text
        assert (tmp_path / "w.jsonl").read_bytes() == (tmp_path / "o.jsonl").read_bytes()

    def test_help_shows_examples(self) -> None:
        for command in ("convert", "validate", "stats"):
            done = chatcodec(command, "--help")
            assert done.returncode == 0
            assert f"chatcodec {command} " in done.stdout.decode()
        assert b"exit status" in chatcodec("--help").stdout


class TestToolCallContent:
    """--tool-call-content, through the installed command."""

    LINE = (
        b'{"messages":[{"role":"user","content":"Weather?"},{"role":"assistant","tool_calls":'
        b'[{"id":"t1","type":"function","function":{"name":"w","arguments":"{}"}}]},'
        b'{"role":"tool","tool_call_id":"t1","content":"9"}]}\n'
    )

    def installed(self, *argv: str) -> subprocess.CompletedProcess[bytes]:
        script = Path(sys.executable).parent / "chatcodec"
        assert script.exists(), "the package's console script is installed beside python"
        return subprocess.run(
            [str(script), *argv], input=self.LINE, capture_output=True, timeout=300, check=False
        )

    @pytest.mark.parametrize("engine", ["local", "dask"])
    def test_empty(self, engine: str, tmp_path: Path) -> None:
        if engine == "dask":
            pytest.importorskip("dask.bag")
            pytest.importorskip("distributed")
        source, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
        source.write_bytes(self.LINE)
        argv = ["convert", "--from", "openai", "--to", "openai", str(source), str(out)]
        argv += ["--model", "gpt-4o", "--jobs", "1", "--engine", engine]
        done = self.installed(*argv, "--tool-call-content", "empty")
        assert done.returncode == 0, done.stderr
        assert jsonl(out.read_bytes())[0]["messages"][1]["content"] == ""  # type: ignore[index]
        done = self.installed(*argv)
        assert done.returncode == 0, done.stderr
        assert "content" not in jsonl(out.read_bytes())[0]["messages"][1]  # type: ignore[index]

    def test_refused(self) -> None:
        argv = ["convert", "--from", "openai", "--to", "gemini", "-", "-"]
        done = self.installed(*argv, "--tool-call-content", "empty")
        assert done.returncode == 2
        assert b"only an openai target" in done.stderr
        assert done.stdout == b""
        done = self.installed(*argv, "--tool-call-content", "blank")
        assert done.returncode == 2
        assert b"invalid choice" in done.stderr


class TestWorkersReadTheFile:
    """From a plain JSONL file, workers read their own chunks and write part files."""

    @staticmethod
    def odd_file(tmp_path: Path) -> Path:
        """Real requests with a bad line, blank lines, CRLF and no newline at the end."""
        lines = FINETUNE.read_bytes().splitlines(keepends=True)
        crlf = lines[3].rstrip(b"\n") + b"\r\n"
        source = tmp_path / "in.jsonl"
        body = [*lines[:3], crlf, b"\n", BAD, *lines[4:100], b"  \n", *lines[100:]]
        source.write_bytes(b"".join(body).rstrip(b"\n"))
        return source

    @staticmethod
    def argv(source: Path, out: str, jobs: str, *more: str) -> list[str]:
        """OpenAI to Anthropic, quietly, with what else is given."""
        return [
            *("convert", "--from", "openai", "--to", "anthropic", str(source), out),
            *("--jobs", jobs, "--max-tokens", "64", "--model", "claude-sonnet-4-5", "--quiet"),
            *more,
        ]

    def convert(self, source: Path, out: Path, jobs: str, *more: str) -> dict[str, object]:
        summary = out.with_name(out.name + ".summary.json")
        more = ("--chunk-lines", "7", "--summary-json", str(summary), *more)
        done = chatcodec(*self.argv(source, str(out), jobs, *more))
        assert done.returncode == 1, done.stderr  # the bad line
        counts = json.loads(summary.read_bytes())
        del counts["seconds"]
        return dict(counts)

    def test_same_output_errors_and_counts_as_one_process(self, tmp_path: Path) -> None:
        source = self.odd_file(tmp_path)
        runs = {}
        for jobs in ("1", "2"):
            out, errors = tmp_path / f"out{jobs}.jsonl", tmp_path / f"errors{jobs}.jsonl"
            runs[jobs] = self.convert(source, out, jobs, "--errors", str(errors))
        assert runs["1"] == runs["2"]
        assert runs["2"]["lines"] == 303
        assert runs["2"]["blank"] == 2
        assert runs["2"]["failed"] == 1
        assert (tmp_path / "out2.jsonl").read_bytes() == (tmp_path / "out1.jsonl").read_bytes()
        problems = (tmp_path / "errors2.jsonl").read_bytes()
        assert problems == (tmp_path / "errors1.jsonl").read_bytes()
        assert {"line": 6, "path": "$.messages[0].role"}.items() <= jsonl(problems)[0].items()
        assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []

    def test_chunks_of_4_mb_number_lines_from_the_start_of_the_file(self, tmp_path: Path) -> None:
        source = tmp_path / "in.jsonl"
        source.write_bytes(FINETUNE.read_bytes() * 10 + BAD)  # 5.9 MB: two chunks
        problems = {}
        for jobs in ("1", "2"):
            errors = tmp_path / f"errors{jobs}.jsonl"
            out = str(tmp_path / f"out{jobs}.jsonl")
            done = chatcodec(*self.argv(source, out, jobs, "--errors", str(errors)))
            assert done.returncode == 1
            problems[jobs] = jsonl(errors.read_bytes())
        assert problems["2"] == problems["1"]
        assert [p["line"] for p in problems["2"] if p["stage"] == "convert"] == [3001]
        refused = sorted({int(str(p["line"])) for p in problems["2"] if p["severity"] == "error"})
        assert refused[:4] == [199, 207, 499, 507]  # an assistant first; a system message alone
        assert (tmp_path / "out2.jsonl").read_bytes() == (tmp_path / "out1.jsonl").read_bytes()

    def test_to_stdout_and_to_gzip(self, tmp_path: Path) -> None:
        source = self.odd_file(tmp_path)
        self.convert(source, tmp_path / "one.jsonl", "1")
        expected = (tmp_path / "one.jsonl").read_bytes()
        self.convert(source, tmp_path / "two.jsonl.gz", "2")
        packed = (tmp_path / "two.jsonl.gz").read_bytes()
        assert gzip.decompress(packed) == expected
        # The workers compressed their parts: one gzip member each, which gzip reads as one.
        assert packed.count(b"\x1f\x8b\x08") > 1
        unpacked = subprocess.run(["gzip", "-dc"], input=packed, capture_output=True, check=True)
        assert unpacked.stdout == expected
        done = chatcodec(*self.argv(source, "-", "2", "--chunk-lines", "7"))
        assert done.returncode == 1
        assert done.stdout == expected

    def test_ctrl_c_to_the_group_leaves_nothing(self, tmp_path: Path) -> None:
        source = tmp_path / "in.jsonl"
        source.write_bytes(FINETUNE.read_bytes() * 40)
        out = tmp_path / "out.jsonl"
        process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "chatcodec",
                "convert",
                "--from",
                "openai",
                "--to",
                "gemini",
                str(source),
                str(out),
                "--jobs",
                "2",
                "--chunk-lines",
                "20",
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,  # a process group of its own, as a terminal's job
            preexec_fn=_default_sigint,
        )

        def writing() -> bool:  # the workers have begun writing
            return bool(list(tmp_path.glob(".chatcodec-*.parts/*")))

        _stopped_cleanly(process, writing, signal.SIGINT, tmp_path, group=True, left=("in.jsonl",))


class TestValidateAndStats:
    """validate reports by line, path and rule; stats counts what a file holds."""

    def test_validate_converted_output(self, tmp_path: Path) -> None:
        out = tmp_path / "claude.jsonl"
        chatcodec(
            "convert",
            "--from",
            "openai",
            "--to",
            "anthropic",
            str(BATCH),
            str(out),
            "--max-tokens",
            "64",
            "--model",
            "claude-x",
            "--quiet",
        )
        done = chatcodec("validate", "--from", "anthropic", str(out))
        text = done.stdout.decode()
        assert "batch records read as anthropic" in done.stderr.decode()
        assert done.returncode in (0, 1)
        assert all(line.startswith(f"{out}: ") for line in text.splitlines())

    def test_validate_reports_lines(self, tmp_path: Path) -> None:
        source = tmp_path / "in.jsonl"
        order = (
            b'{"messages":[{"role":"user","content":"x"},'
            b'{"role":"tool","tool_call_id":"call_9","content":"y"}]}\n'
        )
        source.write_bytes(FINETUNE.read_bytes().splitlines(keepends=True)[0] + order + BAD)
        done = chatcodec("validate", str(source))
        assert done.returncode == 1
        text = done.stdout.decode()
        assert "at line 2, `$.messages[" in text
        assert "(order)" in text
        assert "at line 3," in text
        assert "secret" not in text
        assert "read as openai" in done.stderr.decode()
        strict = chatcodec("validate", "--policy", "strict", str(source)).stdout.decode()
        assert "at line 1, `$.messages[0]` (order)" in strict  # no system message first

    def test_stats(self) -> None:
        done = chatcodec("stats", "--json", str(BATCH))
        stats = json.loads(done.stdout)
        assert stats["records"] == 300
        assert stats["kinds"] == {"batch": 300}
        assert stats["families"] == {"openai": 300}
        assert stats["roles"]["user"] > 0
        assert stats["tool_calls"] > 0
        assert stats["tokens_estimate"] > 0
        assert stats["bytes"] == BATCH.stat().st_size
        table = chatcodec("stats", str(FINETUNE)).stdout.decode()
        assert "records" in table
        assert "roles: user" in table


class TestOutputContract:
    """A zero exit means usable output: each way a run could end with records a user cannot ship."""

    HI = b'{"model":"gpt-4o","messages":[{"role":"user","content":"Hi"}]}'

    def batch(self, tmp_path: Path, *lines: bytes) -> Path:
        path = tmp_path / "batch.jsonl"
        path.write_bytes(b"\n".join(lines) + b"\n")
        return path

    def line(
        self, ident: str, body: bytes | None = None, url: str = "/v1/chat/completions"
    ) -> bytes:
        body = body or self.HI
        head = f'{{"custom_id":"{ident}","method":"POST","url":"{url}","body":'.encode()
        return head + body + b"}"

    def test_pretty_printed_json_stays_on_one_line(self, tmp_path: Path) -> None:
        pretty = json.dumps(json.dumps({"ok": True, "n": [1, 2]}, indent=2))
        body = (
            '{"model":"gpt-4o","messages":[{"role":"user","content":"Go"},'
            '{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function",'
            f'"function":{{"name":"f","arguments":{pretty}}}}}]}},'
            f'{{"role":"tool","tool_call_id":"c1","content":{pretty}}}]}}'
        ).encode()
        source = self.batch(tmp_path, self.line("a", body), self.line("b", body))
        for target, more in (
            ("anthropic", ["--model", "claude-x"]),
            ("gemini", []),
            ("chatcodec", []),
        ):
            out = tmp_path / f"{target}.jsonl"
            done = chatcodec(
                "convert", "--from", "openai", "--to", target, str(source), str(out),
                "--max-tokens", "64", "--quiet", *more,
            )  # fmt: skip
            assert done.returncode == 0, done.stderr
            written = out.read_bytes().splitlines()
            assert len(written) == 2
            assert all(json.loads(line) for line in written)

    def test_refused_records_are_left_out_and_change_the_exit_status(self, tmp_path: Path) -> None:
        source = self.batch(tmp_path, self.line("a"), self.line("b"))
        out, errors = tmp_path / "out.jsonl", tmp_path / "errors.jsonl"
        argv = ["convert", "--from", "openai", "--to", "anthropic", str(source), str(out)]
        done = chatcodec(*argv, "--errors", str(errors), "--summary-json", str(tmp_path / "s.json"))
        assert done.returncode == 1
        assert out.read_bytes() == b""
        counts = json.loads((tmp_path / "s.json").read_bytes())
        assert (counts["refused"], counts["converted"], counts["lossy"]) == (2, 0, 0)
        hints = done.stderr.decode()
        assert "pass --max-tokens N" in hints
        assert "pass --model NAME" in hints
        paths = {json.loads(p)["path"] for p in errors.read_bytes().splitlines()}
        assert paths == {"$.max_tokens", "$.model"}
        kept = chatcodec(*argv, "--keep-refused", "--quiet")
        assert kept.returncode == 0
        assert len(out.read_bytes().splitlines()) == 2
        fixed = chatcodec(*argv, "--model", "claude-x", "--max-tokens", "9", "--quiet")
        assert fixed.returncode == 0, fixed.stderr

    @pytest.mark.parametrize("option", ["--errors", "--summary-json", "OUT"])
    def test_an_output_that_is_the_input_is_a_usage_error(
        self, tmp_path: Path, option: str
    ) -> None:
        source = self.batch(tmp_path, self.line("a"))
        before = source.read_bytes()
        link = tmp_path / "link.jsonl"
        link.symlink_to(source)
        out = str(link) if option == "OUT" else str(tmp_path / "out.jsonl")
        argv = ["convert", "--from", "openai", "--to", "gemini", str(source), out]
        if option != "OUT":
            argv += [option, str(link)]
        done = chatcodec(*argv)
        assert done.returncode == 2
        assert b"is the same file as IN" in done.stderr
        assert source.read_bytes() == before
        assert not (tmp_path / "out.jsonl").exists()

    def test_two_outputs_that_are_one_file_is_a_usage_error(self, tmp_path: Path) -> None:
        source = self.batch(tmp_path, self.line("a"))
        out = str(tmp_path / "out.jsonl")
        done = chatcodec(
            "convert", "--from", "openai", "--to", "gemini", str(source), out, "--errors", out
        )
        assert done.returncode == 2
        assert b"--errors" in done.stderr
        both = chatcodec(
            "convert", "--from", "openai", "--to", "gemini", str(source), "-", "--errors", "-"
        )
        assert both.returncode == 2
        assert b"only one of OUT" in both.stderr

    def test_errors_and_summary_to_stdout(self, tmp_path: Path) -> None:
        source = self.batch(tmp_path, self.line("a"), b'{"custom_id":"b","method":"POST"}')
        out = tmp_path / "out.jsonl"
        done = chatcodec(
            "convert", "--from", "openai", "--to", "gemini", str(source), str(out), "--errors", "-"
        )
        assert done.returncode == 1
        assert json.loads(done.stdout)["line"] == 2
        assert not (tmp_path / "-").exists()
        summary = chatcodec(
            *("convert", "--from", "openai", "--to", "gemini", str(source), str(out)),
            *("--summary-json", "-", "--quiet"),
        )
        assert json.loads(summary.stdout)["failed"] == 1
        assert not (tmp_path / "-").exists()

    @pytest.mark.parametrize(
        ("out", "says"),
        [("folder", b"is a folder"), ("missing/out.jsonl", b"its folder does not exist")],
    )
    def test_outputs_that_cannot_be_written(self, tmp_path: Path, out: str, says: bytes) -> None:
        (tmp_path / "folder").mkdir()
        source = self.batch(tmp_path, self.line("a"))
        done = chatcodec(
            "convert", "--from", "openai", "--to", "gemini", str(source), str(tmp_path / out)
        )
        assert done.returncode == 2
        assert says in done.stderr
        assert b"Traceback" not in done.stderr

    @pytest.mark.parametrize("value", ["0", "-5"])
    def test_max_tokens_below_one(self, tmp_path: Path, value: str) -> None:
        source = self.batch(tmp_path, self.line("a"))
        done = chatcodec(
            "convert", "--from", "openai", "--to", "gemini", str(source), str(tmp_path / "o.jsonl"),
            f"--max-tokens={value}",
        )  # fmt: skip
        assert done.returncode == 2
        assert b"--max-tokens must be at least 1" in done.stderr

    def test_input_of_another_family_or_kind_is_a_usage_error(self, tmp_path: Path) -> None:
        gemini = tmp_path / "gemini.jsonl"
        gemini.write_bytes(b'{"contents":[{"role":"user","parts":[{"text":"Hi"}]}]}\n')
        out = str(tmp_path / "o.jsonl")
        done = chatcodec("convert", "--from", "openai", "--to", "anthropic", str(gemini), out)
        assert done.returncode == 2
        assert b"looks like a gemini request" in done.stderr
        requests = self.batch(tmp_path, self.line("a"))
        kind = chatcodec(
            "convert",
            "--from",
            "openai",
            "--to",
            "anthropic",
            "--kind",
            "response",
            str(requests),
            out,
        )
        assert kind.returncode == 2
        assert b"looks like a batch, not a response" in kind.stderr
        assert not Path(out).exists()

    def test_records_that_hold_nothing_fail(self, tmp_path: Path) -> None:
        source = tmp_path / "in.jsonl"
        source.write_bytes(self.HI + b"\n" + b'{"hello":"world"}\n')
        out = tmp_path / "o.jsonl"
        done = chatcodec(
            "convert", "--from", "openai", "--to", "gemini", str(source), str(out), "--errors", "-"
        )
        assert done.returncode == 1
        problem = json.loads(done.stdout)
        assert (problem["line"], problem["path"]) == (2, "$.messages")
        assert "holds no message" in problem["rule"]
        assert len(out.read_bytes().splitlines()) == 1

    def test_batch_lines_by_endpoint(self, tmp_path: Path) -> None:
        responses = b'{"model":"gpt-4o","input":"Hi"}'
        embeddings = b'{"model":"text-embedding-3-small","input":"Hi"}'
        source = self.batch(
            tmp_path,
            self.line("chat"),
            self.line("resp", responses, "/v1/responses"),
            self.line("emb", embeddings, "/v1/embeddings"),
        )
        out = tmp_path / "o.jsonl"
        done = chatcodec(
            "convert", "--from", "openai", "--to", "anthropic", str(source), str(out),
            "--model", "claude-x", "--max-tokens", "9", "--errors", "-",
        )  # fmt: skip
        assert done.returncode == 1
        problem = json.loads(done.stdout)
        assert (problem["line"], problem["path"]) == (3, "$.url")
        written = [json.loads(x) for x in out.read_bytes().splitlines()]
        assert [r["custom_id"] for r in written] == ["chat", "resp"]
        assert written[1]["params"]["messages"] == [{"role": "user", "content": "Hi"}]
        to_responses = chatcodec(
            "convert",
            "--from",
            "openai",
            "--to",
            "openai-responses",
            str(source),
            str(out),
            "--quiet",
        )
        assert to_responses.returncode == 1  # the embeddings line
        urls = {json.loads(x)["url"] for x in out.read_bytes().splitlines()}
        assert urls == {"/v1/responses"}

    def test_batch_ids(self, tmp_path: Path) -> None:
        no_id = b'{"method":"POST","url":"/v1/chat/completions","body":' + self.HI + b"}"
        lines = [self.line(f"r{k}") for k in range(6)] + [no_id, self.line("r1"), self.line("r5")]
        source = self.batch(tmp_path, *lines)
        out = tmp_path / "o.jsonl"
        for jobs in ("1", "2"):
            done = chatcodec(
                "convert", "--from", "openai", "--to", "gemini", str(source), str(out),
                "--jobs", jobs, "--chunk-lines", "3", "--errors", "-", "--quiet",
            )  # fmt: skip
            assert done.returncode == 1
            problems = [json.loads(x) for x in done.stdout.splitlines()]
            assert [(p["line"], p["path"]) for p in problems if p["severity"] == "error"] == [
                (7, "$.custom_id"),
                (8, "$.key"),
                (9, "$.key"),
            ]
            assert "repeats the id of line 2" in problems[1]["rule"]
        checked = chatcodec("validate", "--from", "gemini", str(out), "--quiet")
        assert checked.returncode == 1
        assert b"repeats the id of line 2" in checked.stdout

    def test_validate_checks_the_anthropic_id_pattern(self, tmp_path: Path) -> None:
        params = b'{"model":"claude-x","max_tokens":9,"messages":[{"role":"user","content":"Hi"}]}'
        source = tmp_path / "claude.jsonl"
        source.write_bytes(b'{"custom_id":"bad.id","params":' + params + b"}\n")
        done = chatcodec("validate", "--from", "anthropic", str(source), "--quiet")
        assert done.returncode == 1
        assert b"^[a-zA-Z0-9_-]{1,64}$" in done.stdout

    def test_stream_is_left_out_of_batch_requests(self, tmp_path: Path) -> None:
        streamed = b'{"model":"gpt-4o","stream":true,"messages":[{"role":"user","content":"Hi"}]}'
        source = self.batch(tmp_path, self.line("a", streamed))
        out = tmp_path / "o.jsonl"
        done = chatcodec(
            "convert", "--from", "openai", "--to", "anthropic", str(source), str(out),
            "--model", "claude-x", "--max-tokens", "9", "--errors", "-",
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        assert "stream" not in json.loads(out.read_bytes())["params"]
        assert "not streamed" in json.loads(done.stdout)["rule"]

    def test_a_target_without_batch_files_is_one_usage_error(self, tmp_path: Path) -> None:
        source = self.batch(tmp_path, self.line("a"), self.line("b"))
        done = chatcodec(
            "convert", "--from", "openai", "--to", "ollama", str(source), str(tmp_path / "o.jsonl")
        )
        assert done.returncode == 2
        assert b"ollama has no batch file format" in done.stderr

    def test_no_error_file_is_left_by_a_failed_run(self, tmp_path: Path) -> None:
        broken = tmp_path / "in.jsonl.gz"
        lines = b"".join(self.line(f"r{k}") + b"\n" for k in range(3000))
        broken.write_bytes(gzip.compress(lines)[:-12])  # cut before its end
        errors = tmp_path / "errors.jsonl"
        done = chatcodec(
            "convert", "--from", "openai", "--to", "gemini", str(broken), str(tmp_path / "o.jsonl"),
            "--errors", str(errors), "--jobs", "1", "--chunk-lines", "100",
        )  # fmt: skip
        assert done.returncode == 2
        assert b"Traceback" not in done.stderr
        assert sorted(p.name for p in tmp_path.iterdir()) == ["in.jsonl.gz"]
        broken.write_bytes(gzip.compress(self.line("a"))[:-12])  # cut in its first record
        done = chatcodec(
            "convert", "--from", "openai", "--to", "gemini", str(broken), str(tmp_path / "o.jsonl")
        )
        assert done.returncode == 2
        assert b"Traceback" not in done.stderr

    def test_stats_of_responses_and_bedrock_bodies_and_given_family(self, tmp_path: Path) -> None:
        bodies = tmp_path / "bodies.jsonl"
        bodies.write_bytes(
            b'{"model":"gpt-4o","input":[{"role":"user","content":"Hi"}]}\n'
            b'{"messages":[{"role":"user","content":[{"text":"Hi"}]}],"inferenceConfig":{}}\n'
            b'{"id":"resp_1","object":"response","status":"completed","output":[]}\n'
        )
        done = chatcodec("stats", str(bodies), "--json")
        stats = json.loads(done.stdout)
        assert (stats["unreadable"], stats["empty"]) == (0, 1)  # a response with no output
        assert stats["families"] == {"openai-responses": 2, "bedrock": 1}
        given = chatcodec("stats", str(bodies), "--from", "bedrock", "--kind", "request", "--json")
        assert json.loads(given.stdout)["empty"] == 2  # read as Converse, they hold nothing


class TestStructuredOutput:
    """--structured-output tool, through the installed command, on both engines."""

    REQUEST = (
        b'{"model":"gpt-4o","messages":[{"role":"user","content":"Where?"}],'
        b'"response_format":{"type":"json_schema","json_schema":{"name":"city","schema":'
        b'{"type":"object","properties":{"name":{"type":"string"}}}}}}\n'
    )
    RESPONSE = (
        b'{"id":"msg_1","type":"message","role":"assistant","model":"claude-3-5-haiku-latest",'
        b'"content":[{"type":"tool_use","id":"toolu_1","name":"json_answer","input":'
        b'{"name":"Paris"}}],"stop_reason":"tool_use","usage":{"input_tokens":9,"output_tokens":5}}\n'
    )

    @pytest.mark.parametrize("engine", ["local", "dask"])
    def test_out_and_back(self, engine: str, tmp_path: Path) -> None:
        if engine == "dask":
            pytest.importorskip("dask.bag")
            pytest.importorskip("distributed")
        script = Path(sys.executable).parent / "chatcodec"
        asked, answered = tmp_path / "asked.jsonl", tmp_path / "answered.jsonl"
        asked.write_bytes(self.REQUEST)
        answered.write_bytes(self.RESPONSE)
        out = tmp_path / "out.jsonl"
        common = ["--jobs", "1", "--engine", engine, "--structured-output", "tool"]
        argv = ["convert", "--from", "openai", "--to", "anthropic", str(asked), str(out)]
        argv += ["--model", "claude-3-5-haiku-latest", "--max-tokens", "256", *common]
        done = subprocess.run([str(script), *argv], capture_output=True, timeout=300, check=False)
        assert done.returncode == 0, done.stderr
        sent = jsonl(out.read_bytes())[0]
        assert sent["tool_choice"] == {"type": "tool", "name": "json_answer"}
        argv = ["convert", "--from", "anthropic", "--to", "openai", "--kind", "response"]
        argv += [str(answered), str(out), *common]
        done = subprocess.run([str(script), *argv], capture_output=True, timeout=300, check=False)
        assert done.returncode == 0, done.stderr
        message = jsonl(out.read_bytes())[0]["choices"][0]["message"]  # type: ignore[index]
        assert message["content"] == '{"name":"Paris"}'
        assert "tool_calls" not in message
