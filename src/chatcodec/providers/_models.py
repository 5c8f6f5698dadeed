"""What a model's name says of the family that serves it.

A request converted to another family keeps its model unless the caller
names one, and a model name rarely means anything to another provider:
``gpt-4o`` sent to Anthropic is refused. The preflights use :func:`maker`
to refuse a model plainly made by another family, and only then: a name
they do not know (a fine-tune, a deployment, a gateway's alias) passes.
"""

from __future__ import annotations

import re

__all__ = ["foreign_model", "maker"]

# Leading patterns of the names each family's own API serves. OpenAI's:
# gpt-*, chatgpt-*, the o-series (o1, o3-mini, o4...), davinci/babbage.
_MAKERS = (
    ("openai", r"(?:gpt-|chatgpt-|o[1-9](?:$|-)|davinci|babbage|text-embedding)"),
    ("anthropic", r"claude-"),
    ("gemini", r"(?:models/)?(?:gemini-|gemma-)"),
    ("cohere", r"(?:command-|c4ai-|aya-)"),
)
# One pattern, a group per family: one match per name, not one per family.
_MAKER = re.compile("|".join(f"(?P<{family}>{pattern})" for family, pattern in _MAKERS))


def maker(model: str) -> str | None:
    """The family whose API serves ``model`` by that name, or None when the name does not say."""
    found = _MAKER.match(model)
    return None if found is None else found.lastgroup


def foreign_model(model: str | None, family: str) -> str | None:
    """The rule a ``family`` request breaks by naming another family's model, or None."""
    if model is None:
        return None
    made_by = maker(model)
    if made_by is None or made_by == family:
        return None
    return f"must name a model {family} serves: this one is {made_by}'s; pass the target's model"
