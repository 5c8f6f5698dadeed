"""What a model's name says of what its API takes: one table of model profiles.

A family's API refuses some requests for some models only: Claude Sonnet 4.5
refuses ``temperature`` and ``top_p`` together, OpenAI's reasoning models
refuse a temperature other than the default, Gemini 1.x has no JSON Schema
fields. Those facts live here, once, by family and model-name pattern; the
preflights (each family's ``check_request``) and the conversions read them
through :func:`profile`. A name the table does not know (a fine-tune, a
deployment, a gateway's alias) has no profile: nothing is assumed of it.

The table is a tuple of frozen rows, built at import and never changed.

Sources, by row:

* Anthropic, one of ``temperature``/``top_p``: "Use only temperature OR top_p,
  not both" is a breaking change of Claude Sonnet 4.5 and Haiku 4.5
  (platform.claude.com/docs/en/about-claude/models/migrating-to-claude-4);
  Claude Opus 4.1 answers 400 "temperature and top_p cannot both be specified
  for this model" (github.com/open-webui/functions/pull/9); the 4.5 and 4.6
  models after them keep the rule.
* Anthropic, no sampling parameters: Claude Opus 4.7 removed ``temperature``,
  ``top_p`` and ``top_k`` (Anthropic's migration guide,
  platform.claude.com/docs/en/about-claude/models/migration-guide, as quoted by
  openrouter.ai/docs/guides/evaluate-and-optimize/model-migrations/claude-4-7);
  the API answers 400 "`temperature` is deprecated for this model"
  (github.com/Comfy-Org/ComfyUI/issues/13923); the models after it keep the rule.
* OpenAI reasoning models (o1, o3, o4-mini, gpt-5, gpt-5-mini, gpt-5-nano): the
  API answers 400 "Unsupported value: 'temperature' does not support 0.5 with
  this model. Only the default (1) value is supported"
  (github.com/leafo/lua-openai/issues/12 for o1-mini,
  github.com/openai/openai-python/issues/2104 for o3-mini), the same for
  ``top_p`` on gpt-5 (zenn.dev/headwaters/articles/a5468c45ec2e52).
  ``gpt-5-chat`` is not a reasoning model and takes them
  (github.com/BerriAI/litellm/issues/13781).
* Gemini 1.0 and 1.5 predate the JSON Schema fields (``parametersJsonSchema``,
  ``responseJsonSchema``), which Google announced for its served models (2.0
  and later) in November 2025: see :mod:`chatcodec.providers.gemini._subset`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Literal

import msgspec

from .._frozen import FrozenMap

__all__ = ["SAMPLING_RULES", "Profile", "profile", "sampling_problems"]

Sampling = Literal["any", "one", "none", "default"]


class Profile(msgspec.Struct, frozen=True, gc=False):
    """What a model takes, as far as its family's API documents it.

    Parameters
    ----------
    sampling : {"any", "one", "none", "default"}
        ``temperature`` and ``top_p``: both (``"any"``), one of them
        (``"one"``), neither (``"none"``, with ``top_k``), or only their
        default values (``"default"``, 1).
    reasoning : bool or None
        Whether the model thinks before it answers (None: not said).
    json_schema : bool
        Gemini only: whether the model has the JSON Schema fields
        (``parametersJsonSchema``, ``responseJsonSchema``).
    """

    sampling: Sampling = "any"
    reasoning: bool | None = None
    json_schema: bool = True


SAMPLING_RULES: Mapping[Sampling, str] = FrozenMap(
    {
        "any": "",
        "one": "this model takes temperature or top_p, not both: send one",
        "none": "this model takes no sampling parameters (temperature, top_p, top_k)",
        "default": "this model takes only the default value (1)",
    }
)
"""The rule a preflight names for each sampling profile."""

# Claude's names on the Anthropic API and on Bedrock (``anthropic.`` and a
# region's prefix before them), with their dated forms.
_CLAUDE = r"(?:(?:[a-z]{2,4}\.)?anthropic\.)?claude-"
_ONE = re.compile(_CLAUDE + r"(?:opus-4-1|(?:sonnet|haiku|opus)-4-[56])(?:$|[-@:])")
_NONE = re.compile(_CLAUDE + r"(?:(?:opus|sonnet|haiku)-(?:4-[7-9]|[5-9](?:-\d)?))(?:$|[-@:])")
_REASONING = re.compile(
    r"(?:o[1-9](?:-mini|-pro|-preview|-deep-research)?|gpt-5(?:-mini|-nano|-pro|-codex)?)"
    r"(?:-\d{4}-\d{2}-\d{2})?$"
)
_GEMINI_1 = re.compile(r"(?:models/)?gemini-1\.[05](?:$|-)")

_ROWS: tuple[tuple[frozenset[str], re.Pattern[str], Profile], ...] = (
    (frozenset({"anthropic", "bedrock"}), _NONE, Profile("none", reasoning=True)),
    (frozenset({"anthropic", "bedrock"}), _ONE, Profile("one", reasoning=True)),
    (frozenset({"openai", "openai-responses"}), _REASONING, Profile("default", reasoning=True)),
    (frozenset({"gemini"}), _GEMINI_1, Profile(reasoning=False, json_schema=False)),
)


def profile(family: str, model: str | None) -> Profile | None:
    """The profile of ``model`` served by ``family``, or None when the table does not know it.

    Examples
    --------
    >>> profile("anthropic", "claude-sonnet-4-5-20250929").sampling
    'one'
    >>> profile("openai", "gpt-5-mini").sampling
    'default'
    >>> profile("openai", "my-fine-tune") is None
    True
    """
    if not model:
        return None
    for families, pattern, found in _ROWS:
        if family in families and pattern.match(model):
            return found
    return None


def sampling_problems(
    family: str,
    model: str | None,
    temperature: float | None,
    top_p: float | None,
    top_k: int | None = None,
) -> list[tuple[str, str]]:
    """``(path, rule)`` for each sampling value the model's profile refuses."""
    if temperature is None and top_p is None and top_k is None:
        return []  # the usual request: no name to look up
    found = profile(family, model)
    if found is None or found.sampling == "any":
        return []
    rule = SAMPLING_RULES[found.sampling]
    if found.sampling == "one":
        return [("$.top_p", rule)] if temperature is not None and top_p is not None else []
    if found.sampling == "none":
        values = (("temperature", temperature), ("top_p", top_p), ("top_k", top_k))
        return [(f"$.{name}", rule) for name, value in values if value is not None]
    return [
        (f"$.{name}", rule)
        for name, value in (("temperature", temperature), ("top_p", top_p))
        if value is not None and value != 1
    ]
