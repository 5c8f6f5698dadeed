"""Adapters between chatcodec's messages and where messages already live.

- :mod:`chatcodec.interop.otel`: OpenTelemetry's GenAI semantic conventions
  (``gen_ai.input.messages``, ``gen_ai.output.messages``,
  ``gen_ai.system_instructions`` and the span attributes around them), which
  observability tools read. No dependency.
- :mod:`chatcodec.interop.langchain`: LangChain messages with v1 content
  blocks (needs ``langchain-core``: ``pip install 'chatcodec[langchain]'``).
- :mod:`chatcodec.interop.pydantic_ai`: pydantic-ai's ``ModelRequest`` and
  ``ModelResponse`` history (needs ``pydantic-ai-slim``:
  ``pip install 'chatcodec[pydantic-ai]'``).

What the other side has no field for is written as more properties where it
allows them, and what chatcodec has no field for is kept in ``extras`` under
the adapter's name, so that a history reads back as it was written.
"""

from __future__ import annotations

__all__: list[str] = []
