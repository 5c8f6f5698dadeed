"""Gemini's request fields besides ``contents``: system instruction, tools and configs.

:class:`FieldDecoder` reads ``systemInstruction`` (as system messages when it
is plain text), ``tools`` (function declarations, Google's own tools kept as
sent), ``toolConfig`` (the tool choice) and ``generationConfig`` (sampling,
seed, penalties, ``candidateCount``, stop sequences, ``thinkingConfig`` and
the response format); what has no canonical field stays in the request's
extras.
"""

from __future__ import annotations

from typing import Any

from msgspec import Raw

from ..._errors import DepthError, ValidationError
from ..._exchange import ProviderTool, Reasoning, ResponseFormat, Tool, ToolChoice
from ..._frozen import FrozenMap
from ..._messages import Message, SystemMessage
from ..._tools import ToolDefinition
from .._wire import expect_dict, expect_list, extras_for
from ._common import NAME, from_gemini_schema, split, table
from ._decode_turns import _ABSENT, _CONTENT, _encode, _spelled

__all__ = ["FieldDecoder"]

_DECL = FrozenMap(table("name", "description", "parameters", "parametersJsonSchema"))
_GEN = FrozenMap(table(
    "maxOutputTokens", "temperature", "topP", "stopSequences", "responseMimeType",
    "responseSchema", "responseJsonSchema", "topK", "seed", "presencePenalty",
    "frequencyPenalty", "candidateCount", "thinkingConfig",
))  # fmt: skip
_THINKING = FrozenMap(table("thinkingBudget", "thinkingLevel"))
_LEVELS = frozenset({"minimal", "low", "medium", "high"})
_TOOL_CONFIG = FrozenMap(table("functionCallingConfig"))
_CALLING = FrozenMap(table("mode", "allowedFunctionNames"))
_MODES = FrozenMap({"AUTO": "auto", "ANY": "required", "NONE": "none", "VALIDATED": "auto"})


class FieldDecoder:
    """The request's non-message fields; mixed into the decoder, which holds ``snakes``."""

    __slots__ = ()

    snakes: set[str]

    def declaration(self, decl: Any, path: str, new: bool) -> Tool:
        decl = expect_dict(decl, path)
        found, rest = split(decl, _DECL, self.snakes)
        hints: dict[str, Any] = {"~tool": "new"} if new else {}
        keep: dict[str, Any] = dict(rest) if rest else {}
        description = found.get("description", _ABSENT)
        if description is None or description == "":
            keep["description"] = description  # "" is canonically absent
            description = None
        elif description is _ABSENT:
            description = None
        schema = found.get("parametersJsonSchema", _ABSENT)
        gemini = found.get("parameters", _ABSENT)
        parameters = None
        if type(schema) is dict and schema.get("type") == "object":
            parameters = schema
            if gemini is not _ABSENT:
                keep["parameters"] = gemini
        else:
            if schema is not _ABSENT:
                keep[_spelled(decl, "parametersJsonSchema")] = schema
            if gemini is not _ABSENT:
                converted = None
                if type(gemini) is dict:
                    converted = from_gemini_schema(gemini, f"{path}.parameters")
                if (
                    converted is not None
                    and schema is _ABSENT
                    and converted[0].get("type") == "object"
                ):
                    parameters = converted[0]
                    hints["~params"] = converted[1]
                else:
                    keep["parameters"] = gemini
        name = found.get("name")
        try:
            if type(name) is not str or (description is not None and type(description) is not str):
                raise ValidationError("must be a string", f"{path}.name")
            where = "parametersJsonSchema" if parameters is schema else "parameters"
            try:
                return ToolDefinition(
                    name,
                    description,
                    parameters,
                    strict=False,
                    extras=extras_for(NAME, {**keep, **hints} or None),
                )
            except DepthError as exc:  # the place in the body, named only if it is too deep
                raise DepthError(exc.limit, f"{path}.{_spelled(decl, where)}") from None
        except ValidationError:
            return ProviderTool(
                NAME, Raw(_encode(decl)), extras=extras_for(NAME, {"~decl": True, **hints})
            )

    def tools(self, value: Any, extras: dict[str, Any]) -> tuple[Tool, ...]:
        if type(value) is dict:
            value = [value]
            extras["~tools"] = "object"
        tools: list[Tool] = []
        grouped = False
        for i, tool in enumerate(expect_list(value, "$.tools")):
            path = f"$.tools[{i}]"
            tool = expect_dict(tool, path)
            key = "functionDeclarations" if "functionDeclarations" in tool else None
            if key is None and "function_declarations" in tool:
                key = "function_declarations"
            declarations = tool.get(key) if key is not None else None
            if key is None or len(tool) != 1 or type(declarations) is not list or not declarations:
                tools.append(ProviderTool(NAME, Raw(_encode(tool))))
                grouped = False
                continue
            if key != "functionDeclarations":
                self.snakes.add(key)
            for j, decl in enumerate(declarations):
                tools.append(self.declaration(decl, f"{path}.{key}[{j}]", grouped and j == 0))
            grouped = True
        return tuple(tools)

    def tool_config(self, value: Any, extras: dict[str, Any]) -> ToolChoice | None:
        config = expect_dict(value, "$.toolConfig")
        found, rest = split(config, _TOOL_CONFIG, self.snakes)
        keep: dict[str, Any] = dict(rest) if rest else {}
        choice = None
        calling = found.get("functionCallingConfig", _ABSENT)
        mode = calling.get("mode") if type(calling) is dict else None
        if type(mode) is str and mode in _MODES:
            inner, inner_rest = split(calling, _CALLING, self.snakes)
            own: dict[str, Any] = dict(inner_rest) if inner_rest else {}
            names = inner.get("allowedFunctionNames", _ABSENT)
            if (
                mode == "ANY"
                and type(names) is list
                and len(names) == 1
                and type(names[0]) is str
                and names[0]
            ):
                choice = ToolChoice("tool", names[0], extras=extras_for(NAME, own or None))
            else:
                if names is not _ABSENT:
                    own[_spelled(calling, "allowedFunctionNames")] = names
                if mode == "VALIDATED":
                    own["~mode"] = mode
                choice = ToolChoice(_MODES[mode], extras=extras_for(NAME, own or None))  # type: ignore[arg-type]
        elif calling is not _ABSENT:
            keep[_spelled(config, "functionCallingConfig")] = calling
        if keep or choice is None:
            extras["toolConfig"] = keep
        return choice

    def generation(self, value: Any, fields: dict[str, Any], extras: dict[str, Any]) -> None:
        config = expect_dict(value, "$.generationConfig")
        found, rest = split(config, _GEN, self.snakes)
        keep: dict[str, Any] = dict(rest) if rest else {}
        used = 0

        def back(name: str) -> None:
            keep[_spelled(config, name)] = found[name]

        for name, field in (
            ("maxOutputTokens", "max_tokens"),
            ("temperature", "temperature"),
            ("topP", "top_p"),
            ("topK", "top_k"),
            ("seed", "seed"),
            ("presencePenalty", "presence_penalty"),
            ("frequencyPenalty", "frequency_penalty"),
            ("candidateCount", "n"),
        ):
            if name in found:
                number = found[name]
                if type(number) is int or (field not in _COUNTS and type(number) is float):
                    fields[field] = number
                    used += 1
                else:
                    back(name)
        if "stopSequences" in found:
            stop = found["stopSequences"]
            if type(stop) is list and all(type(item) is str for item in stop):
                fields["stop"] = tuple(stop)
                used += 1
            else:
                back("stopSequences")
        if "thinkingConfig" in found:
            reasoning, others = _thinking(found["thinkingConfig"], self.snakes)
            if reasoning is None:
                back("thinkingConfig")
            else:
                fields["reasoning"] = reasoning
                used += 1
                if others:
                    keep[_spelled(config, "thinkingConfig")] = others
        mime = found.get("responseMimeType")
        schema = found.get("responseJsonSchema", _ABSENT)
        gemini = found.get("responseSchema", _ABSENT)
        response_format = None
        if mime == "application/json":
            if schema is not _ABSENT:
                if type(schema) is dict:
                    response_format = ResponseFormat("json_schema", schema=schema)
            elif gemini is not _ABSENT:
                converted = (
                    from_gemini_schema(gemini, "$.generationConfig.responseSchema")
                    if type(gemini) is dict
                    else None
                )
                if converted is not None:
                    hint = {"~schema": converted[1]}
                    response_format = ResponseFormat(
                        "json_schema", schema=converted[0], extras=extras_for(NAME, hint)
                    )
            else:
                response_format = ResponseFormat("json_object")
        elif mime == "text/plain" and schema is _ABSENT and gemini is _ABSENT:
            response_format = ResponseFormat("text")
        if response_format is None:
            for name in ("responseMimeType", "responseJsonSchema", "responseSchema"):
                if name in found:
                    back(name)
        else:
            fields["response_format"] = response_format
            used += 1
            if schema is not _ABSENT and gemini is not _ABSENT:
                back("responseSchema")
        if keep or not used:
            extras["generationConfig"] = keep

    def system(self, value: Any) -> list[Message] | None:
        """System messages from ``systemInstruction``; ``None`` to keep it as sent."""
        if type(value) is not dict or not value.keys() <= _CONTENT:
            return None
        parts = value.get("parts")
        if type(parts) is not list or not parts:
            return None
        texts = []
        for part in parts:
            if type(part) is not dict or len(part) != 1:
                return None
            text = part.get("text")
            if type(text) is not str or not text:
                return None
            texts.append(text)
        messages: list[Message] = [SystemMessage(text) for text in texts]
        if "role" in value:
            messages[0] = SystemMessage(texts[0], extras={NAME: {"~role": value["role"]}})
        return messages


_COUNTS = frozenset({"max_tokens", "top_k", "seed", "n"})  # integers only


def _thinking(value: Any, snakes: set[str]) -> tuple[Reasoning | None, dict[str, Any]]:
    """The reasoning a ``thinkingConfig`` says, and its other keys (``includeThoughts``).

    ``None`` when it says none the canonical form holds (a dynamic budget,
    ``-1``, or a level of another spelling): then it is kept whole.
    """
    if type(value) is not dict:
        return None, {}
    found, rest = split(value, _THINKING, snakes)
    budget, level = found.get("thinkingBudget"), found.get("thinkingLevel")
    if (budget is not None and (type(budget) is not int or budget < 0)) or (
        level is not None and level not in _LEVELS
    ):
        return None, {}
    if budget is None and level is None:
        return None, {}
    return Reasoning(level, budget), dict(rest) if rest else {}
