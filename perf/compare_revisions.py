"""Time the canonical decode of the 20-message transcript in two source trees.

For changes whose cost must stay bounded (a new kind in the unions, say):
check out the earlier revision somewhere (``git worktree add /tmp/before
<rev>``), then run ``python perf/compare_revisions.py /tmp/before .``. Each
tree is timed in its own process, alternately, six times; the best of each is
compared, which is what survives the noise of a shared machine.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

TRANSCRIPT = Path(__file__).resolve().parent / "data" / "transcript_20.json"
ROUNDS = 6
PROBE = """
import sys, timeit
sys.path.insert(0, sys.argv[1] + "/src")
import chatcodec as cc
data = open(sys.argv[2], "rb").read()
kind = list[cc.Message]
cc.decode(data, type=kind)
print(min(timeit.repeat(lambda: cc.decode(data, type=kind), number=5000, repeat=15)) / 5000)
"""


def best(tree: str) -> float:
    command = [sys.executable, "-c", PROBE, tree, str(TRANSCRIPT)]
    return float(subprocess.run(command, capture_output=True, check=True, text=True).stdout)


def main() -> None:
    before_tree, after_tree = sys.argv[1], sys.argv[2]
    before = after = float("inf")
    for _ in range(ROUNDS):
        before = min(before, best(before_tree))
        after = min(after, best(after_tree))
    print(f"decode/transcript20: {before * 1e6:.2f} us -> {after * 1e6:.2f} us")
    print(f"ratio after/before: {after / before:.3f}")


if __name__ == "__main__":
    main()
