"""Run the fuzz targets of ``targets.py`` with atheris (libFuzzer), one process each.

Usage (from the project root, in a venv with the ``fuzz`` dependency group)::

    python tests/fuzz/runner.py                      # every target, 60 s each
    python tests/fuzz/runner.py --seconds 600 convert openai_stream
    python tests/fuzz/runner.py --runs 1000000 openai_decode
    python tests/fuzz/runner.py --smoke              # every target, a few seconds, fresh corpus

Each target starts from its seeds (``targets.seeds``: ``tests/data`` and, when it
is there, ``../shared/corpus``) plus what earlier runs kept in ``.fuzz/<target>``
(not with ``--smoke``). A crash (any exception that is not a ``ChatCodecError``,
or a broken promise) stops that target; its input is written to
``.fuzz/crashes/``. The exit status is 1 when any target crashed. The last
lines print how many inputs each target ran.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
WORK = ROOT / ".fuzz"
MAX_LEN = 16384  # longest input libFuzzer makes; seeds longer than this are cut
SMOKE_SECONDS = 4
_RUNS = re.compile(rb"stat::number_of_executed_units:\s*(\d+)")


def _child(target: str, args: list[str]) -> None:
    """Fuzz one target in this process (never returns)."""
    import atheris  # the fuzz dependency group only

    sys.path.insert(0, str(HERE))
    with atheris.instrument_imports(include=["chatcodec"]):
        import chatcodec  # noqa: F401  (instrumented before targets imports it)
    import targets

    atheris.Setup([sys.argv[0], *args], targets.TARGETS[target])
    atheris.Fuzz()


def _write_seeds(target: str, folder: Path, max_len: int = MAX_LEN) -> int:
    sys.path.insert(0, str(HERE))
    import targets

    count = 0
    for data in targets.seeds(target):
        if len(data) <= 4 * max_len:
            (folder / f"seed-{count:05d}").write_bytes(data)
            count += 1
    return count


def _write_dictionary(path: Path) -> None:
    """A libFuzzer dictionary: JSON tokens and the keys and values the wire formats use."""
    sys.path.insert(0, str(HERE))
    import targets

    words = sorted(set(targets.WORDS))
    lines = [f"w{k}={_quoted(word)}" for k, word in enumerate(words)]
    path.write_text("\n".join(lines) + "\n")


def _quoted(word: str) -> str:
    escaped = "".join(c if c.isalnum() or c in "_-:{}[],. " else f"\\x{ord(c):02x}" for c in word)
    return f'"{escaped}"'


def _run(
    target: str, seconds: int, runs: int | None, smoke: bool, max_len: int = MAX_LEN
) -> tuple[bool, int]:
    """Fuzz ``target`` in a child process: (whether it stayed clean, inputs run)."""
    crashes = WORK / "crashes"
    crashes.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        seeds = Path(tmp) / "seeds"
        seeds.mkdir()
        _write_seeds(target, seeds, max_len)
        dictionary = Path(tmp) / "words.dict"
        _write_dictionary(dictionary)
        kept = Path(tmp) / "kept" if smoke else WORK / target
        kept.mkdir(parents=True, exist_ok=True)
        options = [
            str(kept),
            str(seeds),
            f"-max_len={max_len}",
            f"-dict={dictionary}",
            "-timeout=20",
            "-rss_limit_mb=4096",
            "-print_final_stats=1",
            f"-artifact_prefix={crashes}/{target}-",
            f"-max_total_time={seconds}",
        ]
        if runs is not None:
            options.append(f"-runs={runs}")
        command = [sys.executable, __file__, "--child", target, "--", *options]
        done = subprocess.run(command, capture_output=True, check=False)
    found = _RUNS.findall(done.stderr)
    count = int(found[-1]) if found else 0
    if done.returncode != 0:
        sys.stderr.buffer.write(done.stderr[-6000:])
    return done.returncode == 0, count


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("targets", nargs="*", help="target names (default: all)")
    parser.add_argument("--seconds", type=int, default=int(os.environ.get("FUZZ_SECONDS", 60)))
    parser.add_argument("--runs", type=int, default=None, help="stop after this many inputs")
    parser.add_argument("--smoke", action="store_true", help="a few seconds per target")
    parser.add_argument(
        "--max-len",
        type=int,
        default=MAX_LEN,
        help=f"longest input, in bytes (default {MAX_LEN}); seeds longer are cut",
    )
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--child"]:  # run.py --child TARGET -- LIBFUZZER-ARGS...
        _child(argv[1], argv[3:])
    args = parser.parse_args(argv)
    sys.path.insert(0, str(HERE))
    import targets

    names = args.targets or list(targets.TARGETS)
    unknown = [name for name in names if name not in targets.TARGETS]
    if unknown:
        parser.error(f"unknown targets: {', '.join(unknown)}; known: {', '.join(targets.TARGETS)}")
    seconds = SMOKE_SECONDS if args.smoke else args.seconds
    failed = []
    for name in names:
        clean, count = _run(name, seconds, args.runs, args.smoke, args.max_len)
        print(f"{name:20} {'clean' if clean else 'CRASH':6} {count:>12,} inputs", flush=True)
        if not clean:
            failed.append(name)
    if failed:
        print(f"crashed: {', '.join(failed)} (inputs in {WORK / 'crashes'})", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
