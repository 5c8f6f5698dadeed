"""Anthropic's generation settings: ``top_k``, ``metadata.user_id`` and ``thinking``.

The rest of the request's settings (``max_tokens``, ``temperature``,
``top_p``, ``stop_sequences``, tool choice, output format) are read and
written with the request itself. What Anthropic has no setting for (a seed,
penalties, several answers) is reported, each by its canonical path.

Thinking has three forms, and a model takes some of them (its profile says
which, see :mod:`chatcodec.providers._profiles`): ``enabled`` with a token
budget, ``adaptive`` with an effort in ``output_config.effort``, and
``disabled``. A form is read as the canonical :class:`~chatcodec.Reasoning`
only where the encoder writes it back the same for that model; a form the
model refuses (a budget sent to Claude Opus 4.7) is kept as sent, and the
preflight names it. The encoder writes a setting in the form the model takes:
adaptive for an effort (unless the model takes a budget only), the nearest
effort for a budget the model refuses, and no ``thinking`` at all for "off"
to a model that always thinks, each reported.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from ..._exchange import EFFORT_BUDGETS, Reasoning, Request, effort_of
from .._profiles import profile
from .._wire import Encoding, fill

__all__ = [
    "ADAPTIVE_EFFORTS",
    "THINKING_MIN",
    "effort_budget",
    "read_settings",
    "thinking_sent",
    "write_settings",
]

KEYS = ("top_k", "metadata", "thinking")
"""The wire keys read here."""

THINKING_MIN = 1024
"""Anthropic's least thinking budget."""

ADAPTIVE_EFFORTS = frozenset(("low", "medium", "high"))
"""The efforts Anthropic's ``output_config.effort`` and the canonical form both name.

Anthropic's ``xhigh`` and ``max`` have no canonical effort: a request with one
keeps its ``output_config`` and ``thinking`` as sent.
"""

_NAME = "anthropic"


def read_settings(data: dict[str, Any], rest: dict[str, Any], model: Any = None) -> dict[str, Any]:
    """The canonical settings of a request body; what has another shape goes to ``rest``.

    ``rest`` holds what the body's other keys left (``output_config`` without
    its ``format``): adaptive thinking takes its effort from there.
    """
    fields: dict[str, Any] = {}
    if "top_k" in data:
        value = data["top_k"]
        if type(value) is int:
            fields["top_k"] = value
        else:
            rest["top_k"] = value
    if "metadata" in data:
        value = data["metadata"]
        user = value.get("user_id") if type(value) is dict else None
        if type(user) is str:
            fields["user"] = user
            others = {key: item for key, item in value.items() if key != "user_id"}
            if others:
                rest["metadata"] = others
        else:
            rest["metadata"] = value
    if "thinking" in data:
        value = data["thinking"]
        reasoning = _thinking(value, rest, model) if type(value) is dict else None
        if reasoning is None:
            rest["thinking"] = value
        else:
            fields["reasoning"] = reasoning
    return fields


def _thinking(value: dict[str, Any], rest: dict[str, Any], model: Any) -> Reasoning | None:
    """The canonical setting of ``thinking``, or None to keep it as sent.

    How thinking is shown (``display``) has no canonical field: it stays in
    ``rest`` as ``thinking`` holding that key alone, and the encoder writes it
    back into the ``thinking`` it writes.
    """
    kind = value.get("type")
    if kind == "disabled":
        if value.keys() != {"type"} or _refused(model, "thinking_off"):
            return None
        return Reasoning("none")
    if kind == "enabled":
        budget = value.get("budget_tokens")
        if not value.keys() <= _ENABLED or type(budget) is not int or not 0 <= budget < 2**64:
            return None
        if _refused(model, "thinking_budget"):
            return None
        reasoning = Reasoning(budget_tokens=budget)
    elif kind == "adaptive" and value.keys() <= _ADAPTIVE and not _refused(model, "adaptive"):
        config = rest.get("output_config")
        if type(config) is not dict or "effort" not in config:
            reasoning = Reasoning()
        else:
            effort = config["effort"]
            if type(effort) is not str or effort not in ADAPTIVE_EFFORTS:
                return None  # xhigh, max, or not an effort: kept as sent, with thinking
            kept = {key: item for key, item in config.items() if key != "effort"}
            if kept:
                rest["output_config"] = kept
            else:
                del rest["output_config"]
            reasoning = Reasoning(effort)  # type: ignore[arg-type]
    else:
        return None
    if "display" in value:
        rest["thinking"] = {"display": value["display"]}
    return reasoning


_ENABLED = frozenset(("type", "budget_tokens", "display"))
_ADAPTIVE = frozenset(("type", "display"))


def _refused(model: Any, column: str) -> bool:
    """Whether the model's profile says it refuses a form of thinking (``column`` False)."""
    if type(model) is not str:
        return False
    found = profile(_NAME, model)
    return found is not None and getattr(found, column) is False


def effort_budget(reasoning: Reasoning, max_tokens: int | None) -> int | None:
    """The thinking budget sent for an effort: under ``max_tokens``, None if none fits."""
    budget = EFFORT_BUDGETS[reasoning.effort or "medium"]
    if max_tokens is not None and budget >= max_tokens:
        budget = max_tokens - 1  # Anthropic wants the budget under max_tokens
    return budget if budget >= THINKING_MIN else None


class Sent(NamedTuple):
    """What the encoder writes for a request's reasoning setting, and what it reports."""

    thinking: dict[str, Any] | None
    """The ``thinking`` value, or None when none is written."""
    effort: str | None
    """The ``output_config.effort`` written with adaptive thinking, or None."""
    loss: tuple[str, str] | None
    """``(path, rule)`` reported: what the written form says otherwise, or leaves out."""


def thinking_sent(request: Request) -> Sent:
    """What Anthropic's encoder writes for ``request.reasoning`` (not None), for its model.

    Examples
    --------
    >>> from chatcodec import Reasoning, Request, user
    >>> thinking_sent(Request((user("Why?"),), model="claude-opus-4-7",
    ...                       reasoning=Reasoning("low")))[:2]
    ({'type': 'adaptive'}, 'low')
    >>> thinking_sent(Request((user("Why?"),), model="claude-sonnet-4-5", max_tokens=4096,
    ...                       reasoning=Reasoning("low")))[0]
    {'type': 'enabled', 'budget_tokens': 1024}
    """
    reasoning = request.reasoning
    assert reasoning is not None
    found = profile(_NAME, request.model) if request.model else None
    if reasoning.off:
        if found is not None and found.thinking_off is False:
            return Sent(None, None, ("$.reasoning", _NOT_OFF))
        return Sent({"type": "disabled"}, None, None)
    budget = reasoning.budget_tokens
    if budget is not None:
        if found is None or found.thinking_budget is not False:
            return Sent({"type": "enabled", "budget_tokens": budget}, None, None)
        effort = _nearest(effort_of(budget))
        rule = f"a thinking budget: this model thinks adaptively (sent as effort {effort!r})"
        return Sent({"type": "adaptive"}, effort, ("$.reasoning.budget_tokens", rule))
    if found is None or found.adaptive is not False:
        asked = reasoning.effort
        if asked is None or asked in ADAPTIVE_EFFORTS:
            return Sent({"type": "adaptive"}, asked, None)
        said = _nearest(asked)
        rule = f"a reasoning effort: anthropic has no effort {asked!r} (sent as {said!r})"
        return Sent({"type": "adaptive"}, said, ("$.reasoning.effort", rule))
    budget = effort_budget(reasoning, request.max_tokens)
    said = f"effort {reasoning.effort!r}" if reasoning.effort else "no effort"
    if budget is None:
        rule = "a reasoning effort: max_tokens leaves no room for a thinking budget"
        return Sent(None, None, ("$.reasoning.effort", rule))
    rule = f"a reasoning effort: this model takes a token budget ({said} sent as {budget})"
    return Sent({"type": "enabled", "budget_tokens": budget}, None, ("$.reasoning.effort", rule))


_NOT_OFF = "thinking off: this model always thinks (no thinking setting sent)"


def _nearest(effort: str) -> str:
    """The adaptive effort nearest a canonical one (``minimal`` is ``low``)."""
    return effort if effort in ADAPTIVE_EFFORTS else "low"


def write_settings(
    request: Request, own: dict[str, Any], out: dict[str, Any], enc: Encoding
) -> None:
    """Write the settings Anthropic has; report the others."""
    if request.top_k is not None:
        out["top_k"] = request.top_k
    if request.user is not None:
        kept = own.get("metadata")
        out["metadata"] = {**(kept if type(kept) is dict else {}), "user_id": request.user}
    if request.reasoning is not None:
        sent = thinking_sent(request)
        if sent.thinking is not None:
            shown = own.get("thinking")  # how thinking is shown (display), kept apart
            out["thinking"] = fill(sent.thinking, shown) if type(shown) is dict else sent.thinking
        if sent.effort is not None:
            config = out.get("output_config")
            if config is None:
                kept = own.get("output_config")
                config = dict(kept) if type(kept) is dict else {}
            config["effort"] = sent.effort
            out["output_config"] = config
        if sent.loss is not None:
            enc.lose(*sent.loss)
    if request.seed is not None:
        enc.lose("$.seed", "a seed: anthropic has no such setting")
    if request.presence_penalty is not None:
        enc.lose("$.presence_penalty", "a presence penalty: anthropic has no such setting")
    if request.frequency_penalty is not None:
        enc.lose("$.frequency_penalty", "a frequency penalty: anthropic has no such setting")
    if request.n is not None and request.n != 1:
        enc.lose("$.n", "several answers: anthropic gives one answer per request")
