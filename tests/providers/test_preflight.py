"""The preflight of a conversion finds what reading the output back finds.

``convert`` checks the request as the target is sent it, from the canonical
request and the encoder's losses (``providers/_preflight.py``); the way before
decoded the output again and checked that (:func:`read_back`, kept for these
tests and for what the first way cannot tell). Both must find the same
problems, at the same paths, for every recorded request of every family into
every family and for generated requests.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import msgspec
import pytest
from corpus import API, NO_CORPUS, corpus, curated, needs_corpus
from hypothesis import HealthCheck, example, given, settings

import chatcodec as cc
from chatcodec import providers
from chatcodec._errors import ChatCodecError
from chatcodec.bulk._core import order_problems
from chatcodec.providers._model_fit import fit_model
from chatcodec.providers._preflight import _AS_SENT, preflight, read_back
from chatcodec.providers._profiles import NO_IMAGES as IMAGES_REFUSED
from chatcodec.providers.openai import DIALECTS
from strategies import requests

FAMILIES = tuple(API)
# The OpenAI Chat dialects write with their own options, and are checked by
# OpenAI's way (their NAME is "openai").
TARGETS = (*FAMILIES, *(name for name in DIALECTS if name != "openai"))
# The target's model as a caller passes it, and none: the rules of Anthropic
# and Gemini read the model.
MODELS = {
    "openai": "gpt-4o",
    "ollama": "llama3.1",
    "anthropic": "claude-sonnet-4-5",
    "gemini": "gemini-3-pro",
    "openai-responses": "gpt-4o",
    "bedrock": "anthropic.claude-3-5-sonnet-20240620-v1:0",
    "cohere": "command-a-03-2025",
}
MODELS.update({name: "some-model" for name in TARGETS if name not in MODELS})
MODELS["deepseek"] = "deepseek-reasoner"


def both(target: str, request: cc.Request) -> tuple[list[cc.Problem], list[cc.Problem]] | None:
    """The problems found both ways, or ``None`` when the target cannot write the request."""
    writer = providers.get(target)
    losses: list[cc.Loss] = []
    try:
        out = writer.encode_request(request, losses=losses)
    except ChatCodecError:
        return None
    try:
        old = read_back(writer, request, out)
    except ChatCodecError:
        # What the target cannot read back (another provider's raw blocks):
        # the preflight raises as it did, for it reads the output back.
        assert _AS_SENT[writer.NAME](request, losses) is None
        with pytest.raises(ChatCodecError):
            preflight(writer, request, out, losses)
        return None
    sent = _AS_SENT[writer.NAME](request, losses)
    if sent is not None:
        # The bulk path runs the ordering rules on the same request.
        assert order_problems(sent) == order_problems(writer.decode_request(out))
    return preflight(writer, request, out, losses), old


def every_target(request: cc.Request, targets: tuple[str, ...] = TARGETS) -> None:
    """Both ways find the same problems in ``request`` sent to each of ``targets``.

    With the target's model and an output limit, as ``convert`` is asked for
    them, and without (the rules of Anthropic, Gemini and Cohere read the model).
    """
    for target in targets:
        for model, limit in ((MODELS[target], 1024), (None, None)):
            fill: dict[str, Any] = {}
            if model is not None and request.model != model:
                fill["model"] = model
            if limit is not None and request.max_tokens is None:
                fill["max_tokens"] = limit
            found = both(target, msgspec.structs.replace(request, **fill))
            if found is not None:
                assert found[0] == found[1], (target, model)


def recorded() -> list[Any]:
    """Every recorded request, with its family."""
    params = [
        pytest.param(family, param.values[0], id=param.id)
        for family in FAMILIES
        for param in corpus(family, "request")
    ]
    return needs_corpus(params, 2)


@pytest.mark.parametrize(("source", "path"), recorded())
def test_every_recorded_request_into_every_family(source: str, path: Path) -> None:
    try:
        request = providers.get(source).decode_request(path.read_bytes())
    except ChatCodecError:
        return  # refused as malformed: convert raises before any preflight
    every_target(request, FAMILIES)


@pytest.mark.parametrize(
    ("source", "path"),
    [
        pytest.param(family, param.values[0], id=f"{family}-{param.id}")
        for family in FAMILIES
        for param in curated(family, "request")
    ],
)
def test_every_curated_request_into_every_target(source: str, path: Path) -> None:
    """The curated bodies of tests/data, without the corpus, into every family and dialect."""
    try:
        request = providers.get(source).decode_request(path.read_bytes())
    except ChatCodecError:
        return
    every_target(request)


# Models whose profiles refuse something (a reasoning setting, a JSON schema
# format, images): the request as given, and as convert fits it for them.
PROFILED = {
    "openai": "gpt-3.5-turbo",
    "openai-responses": "o1-mini",
    "anthropic": "claude-3-5-sonnet-20241022",
    "gemini": "gemini-2.0-flash",
    "bedrock": "anthropic.claude-3-5-haiku-20241022-v1:0",
    "ollama": "llama3.2:3b",
}


def profiled_targets(request: cc.Request) -> None:
    """Both ways find the same problems for each profiled model, fitted or not.

    One difference is allowed, and checked: a part the encoder left out moves
    the parts after it in the body it wrote, so reading back names an image
    by its place there, and telling the request names it by its place in the
    request (what ``convert`` reports, beside the losses' paths).
    """
    for target, model in PROFILED.items():
        given = msgspec.structs.replace(request, model=model, max_tokens=request.max_tokens or 1024)
        for sent in (given, fit_model(given, target, [])[0]):
            found = both(target, sent)
            if found is not None and found[0] != found[1]:
                told, read = found
                assert [p.rule for p in told] == [p.rule for p in read], (target, model)
                for problem in told:
                    if problem.path != read[told.index(problem)].path:
                        assert problem.rule == IMAGES_REFUSED, (target, model)
                        assert type(_part(sent, problem.path)) is cc.ImagePart, problem.path


def _part(request: cc.Request, path: str) -> Any:
    """The part at ``$.messages[i].content[j]`` of ``request``."""
    i, j = (int(n) for n in re.findall(r"\[(\d+)\]", path)[:2])
    content = request.messages[i].content
    assert type(content) is tuple
    return content[j]


@pytest.mark.parametrize(("source", "path"), recorded())
def test_every_recorded_request_into_profiled_models(source: str, path: Path) -> None:
    try:
        request = providers.get(source).decode_request(path.read_bytes())
    except ChatCodecError:
        return
    profiled_targets(request)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@example(  # an audio part left out before an image: the image moves in the body written
    request=cc.Request(
        (cc.UserMessage((cc.AudioPart(url="a"), cc.ImagePart(url="b"))),),
    )
)
@given(request=requests())
def test_generated_requests_into_profiled_models(request: cc.Request) -> None:
    profiled_targets(request)


@pytest.mark.parametrize("target", TARGETS)
@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(request=requests())
def test_generated_requests(request: cc.Request, target: str) -> None:
    found = both(target, request)
    if found is not None:
        assert found[0] == found[1]


def test_every_family_tells_what_it_sent() -> None:
    assert sorted(_AS_SENT) == sorted(FAMILIES)


# The share of recorded requests of the other families (in percent) checked as
# sent, at least: overall, and of each family. The Responses API reads back a
# user message whose parts it could carry none of (files by URL, audio: 32
# requests), which it sends with no content.
FLOOR = {"openai-responses": (94, 85)}


@pytest.mark.parametrize("target", FAMILIES)
def test_recorded_requests_are_checked_without_reading_back(target: str) -> None:
    """The distribution takes the first way: what the encoder knows is enough."""
    taken: dict[str, int] = {}
    total: dict[str, int] = {}
    for family in FAMILIES:
        if family == target:
            continue
        for param in corpus(family, "request"):
            try:
                request = providers.get(family).decode_request(Path(param.values[0]).read_bytes())
                losses: list[cc.Loss] = []
                providers.get(target).encode_request(request, losses=losses)
            except ChatCodecError:
                continue
            total[family] = total.get(family, 0) + 1
            sent = _AS_SENT[target](request, losses) is not None
            taken[family] = taken.get(family, 0) + sent
    if not total:
        pytest.skip(NO_CORPUS)
    overall, each = FLOOR.get(target, (97, 90))
    assert sum(taken.values()) * 100 >= sum(total.values()) * overall, (taken, total)
    for family, n in total.items():
        assert taken[family] * 100 >= n * each, (family, taken[family], n)


def _tools() -> tuple[cc.ToolDefinition, ...]:
    schema = {"type": "object", "properties": {"city": {"type": "string"}}}
    return (cc.ToolDefinition("get_weather", "The weather in a city.", schema),)


def _call(call_id: str) -> cc.AssistantMessage:
    return cc.assistant(tool_calls=[cc.tool_call(call_id, "get_weather", {"city": "Paris"})])


# The usual shapes of the recorded requests: each target tells what it sent.
USUAL = {
    "a conversation with instructions": (
        cc.system("Be brief."),
        cc.user("Hi"),
        cc.assistant("Hello."),
        cc.user("Weather?"),
    ),
    "calls answered, then text": (
        cc.system("Use tools."),
        cc.user("Weather in Paris and Rome?"),
        cc.assistant(
            tool_calls=[
                cc.tool_call("c1", "get_weather", {"city": "Paris"}),
                cc.tool_call("c2", "get_weather", {"city": "Rome"}),
            ]
        ),
        cc.tool_result("c1", "Sunny"),
        cc.tool_result("c2", "Rain"),
        cc.assistant("Sunny in Paris, rain in Rome."),
        cc.user("Thanks"),
    ),
    "a result followed by user text": (
        cc.user("Weather?"),
        _call("c1"),
        cc.tool_result("c1", "Sunny"),
        cc.user("And tomorrow?"),
    ),
    "an image by URL and text": (
        cc.user([cc.TextPart("What is this?"), cc.ImagePart(url="https://example.com/a.png")]),
    ),
    "two user messages in a row": (cc.user("Hi"), cc.user("Anyone there?")),
    "an answer of parts with an empty text": (
        cc.user("Hi"),
        cc.AssistantMessage((cc.TextPart("Hello"), cc.TextPart(""))),
        cc.user("Well?"),
    ),
}

# Shapes each target declines (its encoder reshapes them in a way it does not
# follow): the output is read back for these.
_JOINED = (cc.user("Weather?"), _call("c1"), cc.assistant("And more."), cc.tool_result("c1", "Sun"))
DECLINED = {
    "openai": _JOINED,
    "openai-responses": _JOINED,
    "anthropic": _JOINED,
    "bedrock": _JOINED,
    "gemini": (
        cc.user("Weather?"),
        cc.AssistantMessage(invalid_tool_calls=(cc.InvalidToolCall("c1", "get_weather", "{"),)),
    ),
    "ollama": (
        cc.user("Weather?"),
        cc.AssistantMessage(invalid_tool_calls=(cc.InvalidToolCall("c1", "get_weather", "{"),)),
    ),
    "cohere": (cc.user("Weather?"),),
}


def _sent(target: str, request: cc.Request) -> cc.Request | None:
    losses: list[cc.Loss] = []
    providers.get(target).encode_request(request, losses=losses)
    return _AS_SENT[target](request, losses)


@pytest.mark.parametrize("target", FAMILIES)
@pytest.mark.parametrize("shape", sorted(USUAL))
def test_usual_shapes_are_checked_as_sent(target: str, shape: str) -> None:
    request = cc.Request(USUAL[shape], model=MODELS[target], max_tokens=256, tools=_tools())
    assert _sent(target, request) is not None
    every_target(request, (target,))


@pytest.mark.parametrize("target", FAMILIES)
def test_declined_shapes_are_read_back(target: str) -> None:
    tools: tuple[cc.Tool, ...] = _tools()
    if target == "cohere":  # a tool without parameters: read back as Cohere's own
        tools = (cc.ToolDefinition("get_weather"),)
    request = cc.Request(DECLINED[target], model=MODELS[target], max_tokens=256, tools=tools)
    assert _sent(target, request) is None
    every_target(request, (target,))


def test_a_user_message_sent_without_content_is_read_back() -> None:
    """The Responses API's decoder reads a user item with no content as an opaque answer."""
    request = cc.Request(
        (cc.user([cc.AudioPart(url="0")]), cc.assistant(""), cc.tool_result("0", ""))
    )
    assert _sent("openai-responses", request) is None
    every_target(request, ("openai-responses",))
