"""litellm's OpenAI -> Anthropic request conversion as a plain per-line loop.

Run by ``bench_bulk.py`` with the Python of a virtual environment of its own
(``perf/.peers/litellm``): litellm pins an older major version of the openai
SDK than chatcodec's provider tests use, so the two cannot share one.

For each line: ``json.loads``, ``AnthropicConfig.map_openai_params`` (the
request's settings: tools, tool choice, temperature...), then
``AnthropicConfig.transform_request`` and ``json.dumps`` of what it gives,
which is how litellm turns an OpenAI request into an Anthropic body before
sending it. A line litellm raises on is counted, not fatal.

Usage: python peer_litellm.py IN.jsonl DISTINCT.jsonl OUT.jsonl

Prints ``{"seconds", "failed", "version"}`` as JSON: the loop over IN alone,
after the import. OUT gets one JSON line per line of DISTINCT: litellm's body
for it, or null where it raised (for the agreement check).
"""

from __future__ import annotations

import json
import os
import sys
import time
from importlib.metadata import version
from typing import Any

# litellm fetches its model price list at import unless told to use its own copy.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from litellm.llms.anthropic.chat.transformation import AnthropicConfig

MODEL = "claude-sonnet-4-5"
MAX_TOKENS = 1024
_config = AnthropicConfig()


def convert(line: bytes) -> str:
    body: dict[str, Any] = json.loads(line)
    messages = body.pop("messages")
    body.pop("model", None)
    optional = _config.map_openai_params(body, {}, MODEL, True)
    optional.setdefault("max_tokens", MAX_TOKENS)
    return json.dumps(_config.transform_request(MODEL, messages, optional, {}, {}))


def main() -> None:
    source, distinct, out = sys.argv[1:4]
    failed = 0
    start = time.perf_counter()
    with open(source, "rb") as f:
        for line in f:
            try:
                convert(line)
            except Exception:  # counted: the loop goes on, as a user's would
                failed += 1
    seconds = time.perf_counter() - start
    with open(distinct, "rb") as f, open(out, "w") as written:
        for line in f:
            try:
                answer: Any = json.loads(convert(line))
            except Exception:
                answer = None
            written.write(json.dumps(answer) + "\n")
    print(json.dumps({"seconds": seconds, "failed": failed, "version": version("litellm")}))


if __name__ == "__main__":
    main()
