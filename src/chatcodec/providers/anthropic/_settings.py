"""Anthropic's generation settings: ``top_k``, ``metadata.user_id`` and ``thinking``.

The rest of the request's settings (``max_tokens``, ``temperature``,
``top_p``, ``stop_sequences``, tool choice, output format) are read and
written with the request itself. What Anthropic has no setting for (a seed,
penalties, several answers) is reported, each by its canonical path.
"""

from __future__ import annotations

from typing import Any

from ..._exchange import EFFORT_BUDGETS, Reasoning, Request
from .._wire import Encoding

__all__ = ["THINKING_MIN", "effort_budget", "read_settings", "write_settings"]

KEYS = ("top_k", "metadata", "thinking")

THINKING_MIN = 1024
"""Anthropic's least thinking budget."""
"""The wire keys read here."""


def read_settings(data: dict[str, Any], rest: dict[str, Any]) -> dict[str, Any]:
    """The canonical settings of a request body; what has another shape goes to ``rest``."""
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
        reasoning = None
        if type(value) is dict:
            kind, budget = value.get("type"), value.get("budget_tokens")
            if kind == "enabled" and value.keys() == {"type", "budget_tokens"}:
                if type(budget) is int and budget >= 0:
                    reasoning = Reasoning(budget_tokens=budget)
            elif kind == "disabled" and value.keys() == {"type"}:
                reasoning = Reasoning("none")
        if reasoning is None:
            rest["thinking"] = value
        else:
            fields["reasoning"] = reasoning
    return fields


def effort_budget(reasoning: Reasoning, max_tokens: int | None) -> int | None:
    """The thinking budget sent for an effort: under ``max_tokens``, None if none fits."""
    budget = EFFORT_BUDGETS[reasoning.effort or "medium"]
    if max_tokens is not None and budget >= max_tokens:
        budget = max_tokens - 1  # Anthropic wants the budget under max_tokens
    return budget if budget >= THINKING_MIN else None


def write_settings(
    request: Request, own: dict[str, Any], out: dict[str, Any], enc: Encoding
) -> None:
    """Write the settings Anthropic has; report the others."""
    if request.top_k is not None:
        out["top_k"] = request.top_k
    if request.user is not None:
        kept = own.get("metadata")
        out["metadata"] = {**(kept if type(kept) is dict else {}), "user_id": request.user}
    reasoning = request.reasoning
    if reasoning is not None:
        if reasoning.off:
            out["thinking"] = {"type": "disabled"}
        elif reasoning.budget_tokens is not None:
            out["thinking"] = {"type": "enabled", "budget_tokens": reasoning.budget_tokens}
        else:
            budget = effort_budget(reasoning, request.max_tokens)
            said = f"effort {reasoning.effort!r}" if reasoning.effort else "no effort"
            if budget is None:
                rule = "a reasoning effort: max_tokens leaves no room for a thinking budget"
            else:
                out["thinking"] = {"type": "enabled", "budget_tokens": budget}
                rule = (
                    f"a reasoning effort: anthropic takes a token budget ({said} sent as {budget})"
                )
            enc.lose("$.reasoning.effort", rule)
    if request.seed is not None:
        enc.lose("$.seed", "a seed: anthropic has no such setting")
    if request.presence_penalty is not None:
        enc.lose("$.presence_penalty", "a presence penalty: anthropic has no such setting")
    if request.frequency_penalty is not None:
        enc.lose("$.frequency_penalty", "a frequency penalty: anthropic has no such setting")
    if request.n is not None and request.n != 1:
        enc.lose("$.n", "several answers: anthropic gives one answer per request")
