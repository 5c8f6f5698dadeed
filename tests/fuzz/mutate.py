"""A quick search for shallow crashes: the seeds of a target, a few bytes changed.

libFuzzer's smoke run (``make fuzz FUZZ_ARGS=--smoke``) spends four seconds a
target and finds an input a few mutations away from a seed by chance. This
script looks for such inputs on purpose: it takes every seed of a target
(``tests/data`` and the corpus beside the checkout), erases, changes or copies
a few bytes of one at random, and runs the target on the result, with its
oracle, for a number of seconds. Each input that raises anything but a
``ChatCodecError`` is written to ``.fuzz/crashes/<target>-mutant-<n>`` and
reported. It needs no atheris.

Usage::

    python tests/fuzz/mutate.py stream_encode --seconds 300 --seed 1
"""

from __future__ import annotations

import argparse
import random
import sys
import time
import traceback
from pathlib import Path

import chatcodec as cc

HERE = Path(__file__).resolve().parent
WORK = HERE.parents[1] / ".fuzz" / "crashes"


def mutant(rng: random.Random, seed: bytes) -> bytes:
    """``seed`` with one to three edits: a run of bytes erased, a byte changed, a run copied."""
    data = bytearray(seed)
    for _ in range(rng.randint(1, 3)):
        if len(data) < 8:
            break
        at = rng.randrange(len(data))
        size = rng.randint(1, min(64, len(data) - at))
        choice = rng.random()
        if choice < 0.6:
            del data[at : at + size]
        elif choice < 0.8:
            data[at] = rng.randrange(256)
        else:
            start = rng.randrange(len(data))
            data[at:at] = data[start : start + size]
    return bytes(data)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("target")
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--seed", type=int, default=0, help="of the random choices")
    parser.add_argument("--most", type=int, default=5, help="stop after this many crashes")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(HERE))
    import targets

    target = targets.TARGETS[args.target]
    seeds = list(targets.seeds(args.target, shared=True))
    rng = random.Random(args.seed)
    WORK.mkdir(parents=True, exist_ok=True)
    found = runs = 0
    end = time.monotonic() + args.seconds
    while seeds and time.monotonic() < end and found < args.most:
        data = mutant(rng, rng.choice(seeds))
        runs += 1
        try:
            target(data)
        except cc.ChatCodecError:
            pass
        except Exception:
            found += 1
            path = WORK / f"{args.target}-mutant-{args.seed}-{found}"
            path.write_bytes(data)
            print(f"crash after {runs:,} inputs, written to {path}", flush=True)
            traceback.print_exc(limit=-3)
    print(f"{args.target}: {runs:,} inputs from {len(seeds)} seeds, {found} crashes")
    return 1 if found else 0


if __name__ == "__main__":
    raise SystemExit(main())
