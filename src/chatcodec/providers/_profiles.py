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

Reasoning (``reasoning=False``: the model refuses a reasoning setting):

* OpenAI's gpt-4o, gpt-4.1, gpt-4 and gpt-3.5 families and ``gpt-5-chat``:
  400 "Unsupported parameter: 'reasoning.effort' is not supported with this
  model." (github.com/BoundaryML/baml/pull/2708 for gpt-4.1,
  github.com/RageAgainstThePixel/OpenAI-DotNet/issues/500 for gpt-4o,
  github.com/Laisky/one-api/issues/120 for gpt-5-chat); Chat Completions says
  the same of ``reasoning_effort``.
* Claude 3 (Haiku, Sonnet, Opus), 3.5 Sonnet and 3.5 Haiku: 400
  "'claude-3-5-sonnet-20241022' does not support thinking."
  (github.com/anthropics/claude-code/issues/2245; on Bedrock, #2507). Extended
  thinking starts with Claude 3.7 Sonnet and takes every Claude 4 model
  (Anthropic's extended-thinking guide, as quoted in
  github.com/router-for-me/CLIProxyAPI/pull/1435).
* Gemini 1.x and 2.0 Flash (and Flash-Lite, but not the thinking
  experiment): 400 "Unable to submit request because thinking is not
  supported by this model" (github.com/googleapis/js-genai/issues/681),
  "thinking_config is not supported." on the Gemini API
  (github.com/immersive-translate/immersive-translate/issues/2976).
* Ollama's Llama 3, 3.1 and 3.2: 400 "llama3.1:8b does not support thinking"
  (the name in quotes; github.com/Gitlawb/openclaude/issues/1371, and the
  same for any model without the thinking capability,
  github.com/taketwo/llm-ollama/pull/54),
  for ``think`` that turns thinking on.

Thinking with a budget (``thinking_budget=False``: Anthropic's ``thinking``
of type ``enabled`` is refused; the model thinks adaptively, with
``output_config.effort``):

* Claude Opus 4.7 and the models after it: 400 "'thinking.type.enabled' is
  not supported for this model. Use 'thinking.type.adaptive' and
  'output_config.effort' to control thinking behavior." (its quotes double)
  (github.com/earendil-works/pi/issues/3297 for Opus 4.7,
  github.com/openclaw/openclaw/issues/87801 for Opus 4.8 on Anthropic and
  Bedrock, github.com/AAClause/nvda-OpenAI/issues/126 for Sonnet 5). Bedrock's
  adaptive-thinking page says the same of Claude Mythos Preview, Fable 5 and
  Mythos 5
  (docs.aws.amazon.com/bedrock/latest/userguide/claude-messages-adaptive-thinking.html).

Adaptive thinking (``adaptive``: whether ``thinking`` of type ``adaptive``, with
``output_config.effort``, is taken):

* Claude Opus 4.6 and Sonnet 4.6 take both forms (the budget is deprecated
  there); "Older models (Claude Sonnet 4.5, Claude Opus 4.5, etc.) do not
  support adaptive thinking and require thinking.type: "enabled" with
  budget_tokens" (Bedrock's adaptive-thinking page, above). The effort levels
  ``low``, ``medium`` and ``high`` are on every model that takes an effort;
  ``xhigh`` and ``max`` on some only (Anthropic's effort guide,
  platform.claude.com/docs/en/build-with-claude/effort).

Thinking turned off (``thinking_off=False``: ``thinking`` of type ``disabled``
is refused):

* Claude Opus 4.7, Mythos Preview, Fable 5 and Mythos 5: "Manual extended
  thinking [...] and disabled thinking (thinking.type: "disabled") are not
  supported on these models and will return a 400 error" (Bedrock's
  adaptive-thinking page, above); "Claude Fable 5 always thinks and cannot
  honor a request with thinking disabled" (github.com/zed-industries/zed/pull/58980).

Structured output (``structured_output=False``: no JSON-schema answer format;
``structured_output="tool"`` in :func:`chatcodec.convert` sends it as a tool):

* OpenAI: "Structured Outputs with ``response_format: {type: "json_schema"}``
  is only supported with the gpt-4o-mini, gpt-4o-mini-2024-07-18, and
  gpt-4o-2024-08-06 model snapshots and later"; JSON mode (``json_object``)
  alone on gpt-3.5-turbo and gpt-4-* (OpenAI's Structured Outputs guide,
  developers.openai.com/api/docs/guides/structured-outputs); the API answers
  400 "Invalid parameter: 'response_format' of type 'json_schema' is not
  supported with this model" (github.com/web-infra-dev/midscene/issues/259).
  o1-mini and o1-preview lack it too (github.com/crewAIInc/crewAI/pull/6357).
* DeepSeek's API (served as ``openai``) has JSON output as ``json_object``
  only (api-docs.deepseek.com/guides/json_mode).
* Anthropic's structured outputs (``output_config.format``) came with Claude
  Sonnet 4.5 and Opus 4.1 and are on the models after them (Anthropic's
  structured-outputs guide; github.com/Effect-TS/effect-smol, release
  @effect/ai-anthropic@4.0.0-beta.79, for the 4.6 models); Claude 3.x, 3.7
  Sonnet and the 4.0 models have none.
* Bedrock's ``outputConfig.textFormat`` (Converse): "You can use structured
  outputs with Claude Sonnet 4.5, Claude Haiku 4.5, Claude Opus 4.5, and
  Claude Opus 4.6 through the Converse API" (Bedrock's user guide,
  docs.aws.amazon.com/bedrock/latest/userguide/claude-messages-structured-outputs.html);
  Claude Opus 4.1, which has them on Anthropic's API, is not among them. The
  Claude rows above hold on Bedrock for the others.

Images (``images=False``: the model takes no image part):

* OpenAI: 400 "Invalid content type. image_url is only supported by certain
  models." for gpt-3.5-turbo (github.com/vllm-project/vllm/issues/11629) and
  gpt-4 (github.com/browser-use/web-ui/issues/274); o1-mini, o1-preview and
  o3-mini are text-only (OpenAI's model pages). DeepSeek's API takes text
  only: 400 "unknown variant `image_url`, expected `text`" (its chat
  completion reference, api-docs.deepseek.com/api/create-chat-completion,
  has text content only).
  In which form a family takes an image (Ollama: bytes only; Bedrock: bytes
  or S3, never an http URL) is the family's own rule, in its encoder and
  preflight: a row says only whether the model takes images at all.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Literal

import msgspec

from .._content import ImagePart
from .._frozen import FrozenMap
from .._problems import Problem

__all__ = [
    "ADAPTIVE_ONLY",
    "ALWAYS_THINKS",
    "BUDGET_ONLY",
    "NO_IMAGES",
    "NO_REASONING",
    "NO_STRUCTURED_OUTPUT",
    "SAMPLING_RULES",
    "Profile",
    "has_images",
    "image_problems",
    "images_refused",
    "profile",
    "profile_problems",
    "reasoning_problems",
    "sampling_problems",
    "sends_reasoning",
    "structured_problems",
]

Sampling = Literal["any", "one", "none", "default"]


class Profile(msgspec.Struct, frozen=True, gc=False):
    """What a model takes, as far as its family's API documents it.

    Each column is what the sources say of the model; ``None`` is "not said"
    (the family's own rules hold, nothing more is assumed).

    Parameters
    ----------
    sampling : {"any", "one", "none", "default"}
        ``temperature`` and ``top_p``: both (``"any"``), one of them
        (``"one"``), neither (``"none"``, with ``top_k``), or only their
        default values (``"default"``, 1).
    reasoning : bool or None
        Whether the model thinks before it answers. ``False``: it refuses a
        reasoning setting its family sends (``reasoning_effort``,
        ``thinking``, ``thinkingConfig``, Ollama's ``think`` that turns
        thinking on: see :func:`sends_reasoning`).
    json_schema : bool
        Gemini only: whether the model has the JSON Schema fields
        (``parametersJsonSchema``, ``responseJsonSchema``).
    structured_output : bool or None
        Whether the model takes a JSON-schema answer format natively.
        ``False``: it refuses one (``structured_output="tool"`` sends the
        schema as a tool the model must call).
    images : bool or None
        Whether the model takes image parts. The form it takes them in (by
        URL or as bytes) is the family's rule, not the model's.
    thinking_budget : bool or None
        Anthropic only: whether the model takes thinking with a token budget
        (``thinking`` of type ``enabled``). ``False``: it thinks adaptively
        only, and refuses that form.
    adaptive : bool or None
        Anthropic only: whether the model takes adaptive thinking
        (``thinking`` of type ``adaptive``, its effort in
        ``output_config.effort``). ``False``: it takes a budget only.
    thinking_off : bool or None
        Anthropic only: whether the model takes thinking turned off
        (``thinking`` of type ``disabled``). ``False``: it always thinks.
    """

    sampling: Sampling = "any"
    reasoning: bool | None = None
    json_schema: bool = True
    structured_output: bool | None = None
    images: bool | None = None
    thinking_budget: bool | None = None
    adaptive: bool | None = None
    thinking_off: bool | None = None


SAMPLING_RULES: Mapping[Sampling, str] = FrozenMap(
    {
        "any": "",
        "one": "this model takes temperature or top_p, not both: send one",
        "none": "this model takes no sampling parameters (temperature, top_p, top_k)",
        "default": "this model takes only the default value (1)",
    }
)
"""The rule a preflight names for each sampling profile."""

NO_REASONING = "this model does not think: it takes no reasoning setting"
"""The rule for a reasoning setting sent to a model that does not think."""

NO_STRUCTURED_OUTPUT = (
    'this model takes no JSON schema answer format: send it as a tool (structured_output="tool")'
)
"""The rule for a JSON-schema answer format sent to a model without one."""

NO_IMAGES = "this model takes no images"
"""The rule for an image sent to a model that takes none."""

ADAPTIVE_ONLY = (
    "this model takes no thinking budget (thinking of type enabled): it thinks adaptively"
)
"""The rule for Anthropic's thinking with a budget sent to a model that refuses it."""

BUDGET_ONLY = (
    "this model takes no adaptive thinking: it takes a thinking budget (thinking of type enabled)"
)
"""The rule for Anthropic's adaptive thinking sent to a model that refuses it."""

ALWAYS_THINKS = "this model always thinks: it takes no thinking of type disabled"
"""The rule for Anthropic's thinking turned off, sent to a model that refuses it."""

# Claude's names on the Anthropic API and on Bedrock (``anthropic.`` and an
# inference profile's prefix before them: a region's, or ``global.``), with
# their dated forms.
_CLAUDE = r"(?:(?:[a-z]{2,4}\.|us-gov\.|global\.)?anthropic\.)?claude-"
_END = r"(?:$|[-@:])"
_ONE = re.compile(_CLAUDE + r"(?:opus-4-1|(?:sonnet|haiku|opus)-4-5)" + _END)
_BOTH_FORMS = re.compile(_CLAUDE + r"(?:sonnet|haiku|opus)-4-6" + _END)
_NONE = re.compile(_CLAUDE + r"(?:(?:opus|sonnet|haiku)-(?:4-[7-9]|[5-9](?:-\d)?))" + _END)
# The models that always think, Opus 4.7 first (it also takes no sampling parameters).
_OPUS_47 = re.compile(_CLAUDE + r"opus-4-7" + _END)
_ALWAYS = re.compile(_CLAUDE + r"(?:fable|mythos)-(?:[5-9](?:-\d)?|preview)" + _END)
# Claude 3 and 3.5 (every size), and their older "claude-3-5-sonnet-latest" names.
_OPUS_41 = re.compile(_CLAUDE + r"opus-4-1" + _END)
_CLAUDE_3 = re.compile(_CLAUDE + r"3-(?:5-)?(?:haiku|sonnet|opus)" + _END)
_CLAUDE_37 = re.compile(_CLAUDE + r"3-7-sonnet" + _END)
# Claude Sonnet 4 and Opus 4 (not 4.1 and after: "-20250514" is a date, "-1" a version).
_CLAUDE_40 = re.compile(_CLAUDE + r"(?:sonnet|opus)-4(?:$|-\d{8}|[@:])")
_DATED = r"(?:-\d{4}-\d{2}-\d{2})?$"
# The reasoning models that take no image and no JSON-schema format, before the others.
_O_TEXT = re.compile(r"o1-(?:mini|preview)" + _DATED)
_O3_MINI = re.compile(r"o3-mini" + _DATED)
_REASONING = re.compile(
    r"(?:o[1-9](?:-mini|-pro|-preview|-deep-research)?|gpt-5(?:-mini|-nano|-pro|-codex)?)" + _DATED
)
# OpenAI's models that do not think. gpt-4o's first snapshot predates
# json_schema; "chatgpt-4o-latest" is refused it too.
_GPT_4O_FIRST = re.compile(r"(?:gpt-4o-2024-05-13|chatgpt-4o-latest)$")
_GPT_4O = re.compile(r"gpt-4(?:o|\.1)(?:-mini|-nano)?" + _DATED)
_GPT_5_CHAT = re.compile(r"gpt-5-chat(?:-latest)?$")
_GPT_4_TURBO = re.compile(r"gpt-4-turbo(?:-2024-04-09)?$")
_GPT_4_TEXT = re.compile(
    r"gpt-4(?:-0613|-0314|-32k(?:-0613)?|-1106-preview|-0125-preview|-turbo-preview)?$"
)
_GPT_35 = re.compile(r"gpt-3\.5-turbo(?:-\d{4}|-16k(?:-\d{4})?|-instruct)?$")
_DEEPSEEK = re.compile(r"deepseek-(?:chat|reasoner)$")
# Ollama's Llama 3, 3.1 and 3.2 (any tag; not "llama3.2-vision", whose name goes on).
_LLAMA_3 = re.compile(r"llama3(?:\.[12])?(?::[\w.-]+)?$")
_GEMINI_1 = re.compile(r"(?:models/)?gemini-1\.[05](?:$|-)")
_GEMINI_20 = re.compile(
    r"(?:models/)?gemini-2\.0-flash(?:-lite)?(?:-\d{3}|-exp|-preview-\d{2}-\d{2})?$"
)

_ANTHROPIC = frozenset({"anthropic", "bedrock"})
# Claude 3.7 Sonnet and the 4.0 models: thinking with a budget, no JSON-schema format.
_BUDGET_NO_FORMAT = Profile(
    reasoning=True, structured_output=False, thinking_budget=True, adaptive=False
)
_OPENAI = frozenset({"openai", "openai-responses"})

# First match wins: a name is matched against the rows in order.
_ROWS: tuple[tuple[frozenset[str], re.Pattern[str], Profile], ...] = (
    (
        _ANTHROPIC,
        _OPUS_47,
        Profile(
            "none",
            reasoning=True,
            structured_output=True,
            thinking_budget=False,
            adaptive=True,
            thinking_off=False,
        ),
    ),
    (
        _ANTHROPIC,
        _NONE,
        Profile(
            "none", reasoning=True, structured_output=True, thinking_budget=False, adaptive=True
        ),
    ),
    (
        _ANTHROPIC,
        _ALWAYS,
        Profile(reasoning=True, thinking_budget=False, adaptive=True, thinking_off=False),
    ),
    (
        frozenset({"bedrock"}),
        _OPUS_41,
        Profile(
            "one", reasoning=True, structured_output=False, thinking_budget=True, adaptive=False
        ),
    ),
    (
        _ANTHROPIC,
        _BOTH_FORMS,
        Profile("one", reasoning=True, structured_output=True, thinking_budget=True, adaptive=True),
    ),
    (
        _ANTHROPIC,
        _ONE,
        Profile(
            "one", reasoning=True, structured_output=True, thinking_budget=True, adaptive=False
        ),
    ),
    (_ANTHROPIC, _CLAUDE_40, _BUDGET_NO_FORMAT),
    (_ANTHROPIC, _CLAUDE_37, _BUDGET_NO_FORMAT),
    (_ANTHROPIC, _CLAUDE_3, Profile(reasoning=False, structured_output=False)),
    (
        _OPENAI,
        _O_TEXT,
        Profile("default", reasoning=True, structured_output=False, images=False),
    ),
    (_OPENAI, _O3_MINI, Profile("default", reasoning=True, structured_output=True, images=False)),
    (_OPENAI, _REASONING, Profile("default", reasoning=True, structured_output=True, images=True)),
    (_OPENAI, _GPT_4O_FIRST, Profile(reasoning=False, structured_output=False, images=True)),
    (_OPENAI, _GPT_4O, Profile(reasoning=False, structured_output=True, images=True)),
    (_OPENAI, _GPT_5_CHAT, Profile(reasoning=False, images=True)),
    (_OPENAI, _GPT_4_TURBO, Profile(reasoning=False, structured_output=False, images=True)),
    (_OPENAI, _GPT_4_TEXT, Profile(reasoning=False, structured_output=False, images=False)),
    (_OPENAI, _GPT_35, Profile(reasoning=False, structured_output=False, images=False)),
    (frozenset({"openai"}), _DEEPSEEK, Profile(structured_output=False, images=False)),
    (frozenset({"ollama"}), _LLAMA_3, Profile(reasoning=False)),
    (frozenset({"gemini"}), _GEMINI_1, Profile(reasoning=False, json_schema=False)),
    (frozenset({"gemini"}), _GEMINI_20, Profile(reasoning=False)),
)


def _by_family(
    rows: tuple[tuple[frozenset[str], re.Pattern[str], Profile], ...],
) -> FrozenMap[str, tuple[re.Pattern[str], tuple[Profile | None, ...]]]:
    """Each family's rows as one pattern, and the profile of each of its groups.

    The pattern is the family's row patterns in order, each in a group of its
    own, as alternatives: matched at the start of a name, the first that
    matches wins, as it does row by row, and the group that closed last
    (``lastindex``) is that row's. One match per lookup instead of one per row.
    """
    grouped: dict[str, list[tuple[re.Pattern[str], Profile]]] = {}
    for families, pattern, found in rows:
        for family in sorted(families):
            grouped.setdefault(family, []).append((pattern, found))
    table: dict[str, tuple[re.Pattern[str], tuple[Profile | None, ...]]] = {}
    for family, pairs in grouped.items():
        names = [f"row{k}" for k in range(len(pairs))]
        either = re.compile(
            "|".join(f"(?P<{n}>{p.pattern})" for n, (p, _) in zip(names, pairs, strict=True))
        )
        at: list[Profile | None] = [None] * (either.groups + 1)
        for name, (_, found) in zip(names, pairs, strict=True):
            at[either.groupindex[name]] = found
        table[family] = (either, tuple(at))
    return FrozenMap(table)


_BY_FAMILY = _by_family(_ROWS)


def profile(family: str, model: str | None) -> Profile | None:
    """The profile of ``model`` served by ``family``, or None when the table does not know it.

    Examples
    --------
    >>> profile("anthropic", "claude-sonnet-4-5-20250929").sampling
    'one'
    >>> profile("openai", "gpt-5-mini").sampling
    'default'
    >>> profile("openai", "gpt-4o").reasoning, profile("openai", "gpt-3.5-turbo").images
    (False, False)
    >>> profile("anthropic", "claude-3-7-sonnet-20250219").structured_output
    False
    >>> profile("openai", "my-fine-tune") is None
    True
    """
    if not model:
        return None
    key = (family, model)
    if key in _FOUND:
        return _FOUND[key]
    rows = _BY_FAMILY.get(family)
    if rows is None:
        return None
    matched = rows[0].match(model)
    found = None if matched is None else rows[1][matched.lastindex or 0]
    if len(_FOUND) >= 1024:
        _FOUND.clear()
    _FOUND[key] = found
    return found


# Each (family, model) looked up: a caller sends the same few models with every
# request, and the match of every row costs a few times the lookup. Bounded.
_FOUND: dict[tuple[str, str], Profile | None] = {}


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


def reasoning_problems(family: str, model: str | None, reasoning: object) -> list[tuple[str, str]]:
    """``[("$.reasoning", rule)]`` when the model's profile says it does not think, else ``[]``.

    Examples
    --------
    >>> from chatcodec import Reasoning
    >>> reasoning_problems("openai", "gpt-4.1", Reasoning("high"))
    [('$.reasoning', 'this model does not think: it takes no reasoning setting')]
    >>> reasoning_problems("openai", "o3", Reasoning("high"))
    []
    """
    if not sends_reasoning(family, reasoning):
        return []  # the usual request: no name to look up
    found = profile(family, model)
    if found is None or found.reasoning is not False:
        return []
    return [("$.reasoning", NO_REASONING)]


# The families that send a setting for thinking at the provider's default
# (Anthropic: ``thinking`` enabled; Ollama: ``think: true``). The others send
# nothing for it.
_DEFAULT_SENT = frozenset({"anthropic", "ollama"})
# The families whose models that do not think take thinking turned off
# (Ollama refuses only ``think`` that turns it on).
_OFF_TAKEN = frozenset({"ollama"})
# The families that send no reasoning setting at all: Converse has no field
# for it (its encoder leaves it out and reports it).
_NEVER_SENT = frozenset({"bedrock"})


def sends_reasoning(family: str, reasoning: Any) -> bool:
    """Whether ``family`` sends ``reasoning`` (canonical, or None) as a setting a model may refuse.

    A setting with neither an effort nor a budget is thinking at the
    provider's default: OpenAI Chat and Gemini send nothing for it, the
    Responses API an empty ``reasoning`` its non-reasoning models take.
    Ollama takes ``think: false`` from every model; Bedrock sends no setting.
    """
    if reasoning is None or family in _NEVER_SENT or (family in _OFF_TAKEN and reasoning.off):
        return False
    return (
        reasoning.effort is not None
        or reasoning.budget_tokens is not None
        or family in _DEFAULT_SENT
    )


def structured_problems(
    family: str, model: str | None, response_format: Any
) -> list[tuple[str, str]]:
    """``[("$.response_format", rule)]`` for a JSON schema format the model cannot take natively.

    ``response_format`` is the request's :class:`~chatcodec.ResponseFormat` (or None).

    Examples
    --------
    >>> from chatcodec import ResponseFormat
    >>> answer = ResponseFormat("json_schema", "city", {"type": "object"})
    >>> [rule for _, rule in structured_problems("openai", "gpt-3.5-turbo", answer)]
    ['this model takes no JSON schema answer format: send it as a tool (structured_output="tool")']
    >>> structured_problems("openai", "gpt-4o-mini", answer)
    []
    """
    if (
        response_format is None
        or response_format.type != "json_schema"
        or response_format.schema is None  # not sent as a schema (the families report it)
    ):
        return []  # the usual request: no name to look up
    found = profile(family, model)
    if found is None or found.structured_output is not False:
        return []
    return [("$.response_format", NO_STRUCTURED_OUTPUT)]


# The families with a model that refuses images: the others need no look at the parts.
_IMAGES_REFUSED = frozenset(
    f for families, _, row in _ROWS if row.images is False for f in families
)


def images_refused(family: str, model: str | None) -> bool:
    """Whether the model's profile says it takes no images."""
    if family not in _IMAGES_REFUSED:
        return False
    found = profile(family, model)
    return found is not None and found.images is False


def has_images(family: str, messages: Iterable[Any]) -> bool:
    """Whether ``messages`` hold an image part, for a family with a model that refuses them."""
    if family not in _IMAGES_REFUSED:
        return False
    for message in messages:
        content = getattr(message, "content", None)  # (an unknown record has none)
        if type(content) is tuple:
            for part in content:
                if type(part) is ImagePart:
                    return True
    return False


def image_problems(
    family: str, model: str | None, messages: Sequence[Any]
) -> list[tuple[str, str]]:
    """``(path, rule)`` for each image part of ``messages`` the model's profile refuses.

    The name is looked up at the first image only: a request without images
    pays for no lookup.

    Examples
    --------
    >>> from chatcodec import ImagePart, user
    >>> hi = user([ImagePart(url="https://example.com/cat.png")])
    >>> image_problems("openai", "gpt-3.5-turbo", [hi])
    [('$.messages[0].content[0]', 'this model takes no images')]
    >>> image_problems("openai", "gpt-4o", [hi])
    []
    """
    if not has_images(family, messages) or not images_refused(family, model):
        return []
    return [
        (f"$.messages[{i}].content[{j}]", NO_IMAGES)
        for i, message in enumerate(messages)
        if type(getattr(message, "content", None)) is tuple
        for j, part in enumerate(message.content)
        if type(part) is ImagePart
    ]


def profile_problems(family: str, request: Any) -> list[Problem]:
    """What the model's profile refuses in ``request``: a reasoning setting, the format, images.

    Each family's ``check_request`` gives these (the sampling rules apart,
    beside its own ranges). A request without a reasoning setting, a JSON
    schema format or an image looks nothing up.
    """
    found = [
        *reasoning_problems(family, request.model, request.reasoning),
        *structured_problems(family, request.model, request.response_format),
        *image_problems(family, request.model, request.messages),
    ]
    return [Problem(path, rule) for path, rule in found]
