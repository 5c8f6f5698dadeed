"""chatcodec.dask and --engine dask on a real distributed.LocalCluster."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, cast

import pytest

import chatcodec as cc

distributed = pytest.importorskip("distributed")
pytest.importorskip("dask.bag")

from chatcodec.dask import convert_bag, convert_files  # noqa: E402

BATCH = Path(__file__).parent / "data" / "bulk" / "openai-batch-input.jsonl"
BAD = (
    b'{"custom_id":"bad","method":"POST","url":"/v1/chat/completions",'
    b'"body":{"messages":[{"role":"wizard","content":"secret"}]}}'
)


@pytest.fixture(scope="module")
def cluster() -> Iterator[Any]:
    cluster = distributed.LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        processes=True,
        host="127.0.0.1",
        dashboard_address="127.0.0.1:0",  # a free port: 8787 may be another cluster's
    )
    try:
        yield cluster
    finally:
        cluster.close()


@pytest.fixture
def big(tmp_path: Path) -> Path:
    """A few thousand real batch lines: the shipped 300, ten times with new ids, one bad."""
    lines = BATCH.read_bytes().splitlines()
    out: list[bytes] = []
    for round_ in range(10):
        for line in lines:
            record = json.loads(line)
            record["custom_id"] = f"{record['custom_id']}-{round_}"
            out.append(json.dumps(record).encode())
    out.insert(1234, BAD)
    path = tmp_path / "big.jsonl"
    path.write_bytes(b"\n".join(out) + b"\n")
    return path


class TestDask:
    """The same records and accounting as convert_lines, on two worker processes."""

    def test_convert_files(self, cluster: Any, big: Path, tmp_path: Path) -> None:
        lines = big.read_bytes().splitlines()
        expected = cc.convert_lines(lines, source="openai", target="anthropic", max_tokens=64)
        out = tmp_path / "out"
        with distributed.Client(cluster):
            result = convert_files(
                str(big),
                str(out / "*.jsonl"),
                source="openai",
                target="anthropic",
                max_tokens=64,
                blocksize=200_000,
            )
        parts = sorted(out.glob("*.jsonl"), key=lambda p: int(p.stem))
        assert len(parts) > 2
        # A partition with nothing to write is one line break (see convert_files).
        written = [line for p in parts for line in p.read_bytes().splitlines() if line]
        assert written == expected.records
        assert result.counts() == expected.counts()
        assert result.lines == 3001
        errors = [(p.line, p.path, p.rule) for p in result.problems if p.severity == "error"]
        assert errors == [
            (p.line, p.path, p.rule) for p in expected.problems if p.severity == "error"
        ]
        assert result.failed == expected.failed == 1
        assert 1235 in {line for line, _, _ in errors}  # the bad line, by its number in the file

    def test_convert_bag(self, cluster: Any) -> None:
        import dask.bag

        db: Any = dask.bag  # dask's functions carry no annotations
        lines = [line.decode() for line in BATCH.read_bytes().splitlines()]
        with distributed.Client(cluster):
            bag = db.from_sequence(lines, npartitions=4)
            out, results = convert_bag(
                bag, source="openai", target="gemini", kind="batch", keep_refused=True
            )
            records = cast(Any, out).compute()
            counts = cast(Any, results).compute()
        assert len(records) == 300
        assert [json.loads(r)["key"] for r in records] == [
            json.loads(x)["custom_id"] for x in lines
        ]
        assert sum(r.lines for r in counts) == 300

    def test_command_on_the_cluster(self, cluster: Any, big: Path, tmp_path: Path) -> None:
        out, errors = tmp_path / "out.jsonl", tmp_path / "errors.jsonl"
        local = tmp_path / "local.jsonl"
        common = ["convert", "--from", "openai", "--to", "gemini", str(big)]
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "chatcodec",
                *common,
                str(out),
                "--engine",
                "dask",
                "--scheduler",
                cluster.scheduler_address,
                "--errors",
                str(errors),
            ],
            capture_output=True,
            timeout=600,
            check=False,
        )
        assert done.returncode == 1, done.stderr  # the one bad line
        subprocess.run(
            [sys.executable, "-m", "chatcodec", *common, str(local), "--quiet", "--jobs", "1"],
            capture_output=True,
            timeout=600,
            check=False,
        )
        assert out.read_bytes() == local.read_bytes()
        failed = [json.loads(x) for x in errors.read_bytes().splitlines()]
        assert [p["line"] for p in failed if p["stage"] == "convert"] == [1235]
        # The rest are the target's preflight: records Anthropic would refuse, kept and said.
        stages = {p["stage"] for p in failed if p["severity"] == "error"}
        assert stages == {"convert", "preflight", "order"}
        assert b"secret" not in errors.read_bytes()
        assert sorted(p.name for p in tmp_path.iterdir()) == [
            "big.jsonl",
            "errors.jsonl",
            "local.jsonl",
            "out.jsonl",
        ]

    def test_command_starts_a_local_cluster(self, tmp_path: Path) -> None:
        out, local = tmp_path / "out.jsonl", tmp_path / "local.jsonl"
        common = ["convert", "--from", "openai", "--to", "anthropic", str(BATCH)]
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "chatcodec",
                *common,
                str(out),
                "--engine",
                "dask",
                "--jobs",
                "2",
                "--max-tokens",
                "64",
                "--keep-refused",
                "--quiet",
            ],
            capture_output=True,
            timeout=600,
            check=False,
        )
        assert done.returncode == 0, done.stderr
        assert b"(batch, dask)" in done.stderr
        subprocess.run(
            [
                sys.executable,
                "-m",
                "chatcodec",
                *common,
                str(local),
                "--quiet",
                "--jobs",
                "1",
                "--max-tokens",
                "64",
                "--keep-refused",
            ],
            capture_output=True,
            timeout=600,
            check=False,
        )
        assert out.read_bytes() == local.read_bytes()

    def test_ctrl_c_stops_the_run_quietly(self, big: Path, tmp_path: Path) -> None:
        source = tmp_path / "in.jsonl"
        source.write_bytes(big.read_bytes() * 60)
        out = tmp_path / "out.jsonl"
        argv = ["convert", "--from", "openai", "--to", "gemini", str(source), str(out)]
        with subprocess.Popen(
            [sys.executable, "-m", "chatcodec", *argv, "--engine", "dask", "--jobs", "2"],
            stderr=subprocess.PIPE,
            start_new_session=True,  # a process group of its own, as a terminal gives
            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
        ) as process:
            # Ctrl-C once the cluster runs: the folder of its parts is made then. The
            # cluster ignores Ctrl-C while it starts (its workers inherit that), and
            # a start can take minutes on a loaded machine: wait by the clock.
            deadline = time.monotonic() + 600
            while not any(p.name.endswith(".parts") for p in tmp_path.iterdir()):
                if process.poll() is not None or time.monotonic() > deadline:
                    process.kill()
                    _, err = process.communicate(timeout=120)
                    pytest.fail(f"the run never reached its parts: {err.decode()[-2000:]}")
                time.sleep(0.05)
            os.killpg(process.pid, signal.SIGINT)
            _, err = process.communicate(timeout=120)
        assert process.returncode == 130, err
        assert b"interrupted; no output written" in err
        assert b"Traceback" not in err
        assert b"never retrieved" not in err
        assert sorted(p.name for p in tmp_path.iterdir()) == ["big.jsonl", "in.jsonl"]

    def test_command_needs_files(self) -> None:
        done = subprocess.run(
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
                "-",
                "--engine",
                "dask",
            ],
            capture_output=True,
            input=b"",
            timeout=600,
            check=False,
        )
        assert done.returncode == 2
        assert b"reads and writes files" in done.stderr


class TestInterruptInACallback:
    """Ctrl-C that lands in a callback Python calls with no caller (distributed's
    garbage-collection callback) is printed by Python as "ignored", with its
    traceback; the run raises it again once it returns, so nothing is printed."""

    def test_nothing_is_printed_for_it(self) -> None:
        from types import SimpleNamespace

        from chatcodec.bulk._dask_command import _Interrupt

        before = sys.unraisablehook
        seen: list[Any] = []
        sys.unraisablehook = seen.append
        try:
            stop = _Interrupt()
            stop.watch()
            try:
                stop.seen = True  # as the handler says it (it also quiets distributed's logs)
                sys.unraisablehook(SimpleNamespace(exc_type=KeyboardInterrupt))
                other = SimpleNamespace(exc_type=ValueError)
                sys.unraisablehook(other)
                with pytest.raises(KeyboardInterrupt):
                    stop.check()
            finally:
                stop.restore()
            assert seen == [other]  # another exception is still printed
            assert sys.unraisablehook == seen.append
        finally:
            sys.unraisablehook = before


def test_stopping_quiets_the_loggers_distributed_sets_levels_of() -> None:
    """A callback failing on tornado's loop as the run stops is not logged.

    distributed gives ``tornado.application`` (and some of its own loggers) a
    level of their own, which a parent's does not override: a stopped run
    printed tornado's "Exception in callback" with its traceback (seen in a
    fresh clone under load).
    """
    import logging

    import distributed  # noqa: F401 (it sets its loggers' levels)

    from chatcodec.bulk._dask_command import _quiet

    loggers = [logging.getLogger(name) for name in list(logging.root.manager.loggerDict)]
    loggers += [logging.getLogger(name) for name in ("asyncio", "distributed", "tornado")]
    saved = [(logger, logger.level) for logger in loggers if isinstance(logger, logging.Logger)]
    try:
        assert logging.getLogger("tornado.application").isEnabledFor(logging.ERROR)
        _quiet()
        for name in ("tornado.application", "distributed.client", "distributed", "asyncio"):
            assert not logging.getLogger(name).isEnabledFor(logging.CRITICAL), name
    finally:
        for logger, level in saved:
            logger.setLevel(level)


def test_a_cluster_of_its_own_takes_no_fixed_port(big: Path, tmp_path: Path) -> None:
    """The cluster ``--engine dask`` starts serves HTTP on loopback at a free port.

    Port 8787 (distributed's default) may be held by another cluster or a
    notebook's dashboard: it then warned and took another port; now it asks
    for a free one on 127.0.0.1.
    """
    import socket

    held = socket.socket()
    try:
        held.bind(("127.0.0.1", 8787))
        held.listen()
    except OSError:
        pass  # held already by another process: the run must not mind either
    try:
        out = tmp_path / "out.jsonl"
        done = subprocess.run(
            [sys.executable, "-m", "chatcodec", "convert", "--from", "openai", "--to", "gemini",
             str(big), str(out), "--engine", "dask", "--jobs", "1"],
            capture_output=True,
            timeout=600,
            check=False,
        )  # fmt: skip
    finally:
        held.close()
    assert done.returncode == 1, done.stderr  # the one bad line
    assert b"8787" not in done.stderr
    assert out.exists()
