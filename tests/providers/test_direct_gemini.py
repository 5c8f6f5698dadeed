"""The usual Gemini request goes straight across and gives what the general path gives."""

from __future__ import annotations

import json
from typing import Any

import either_path
import pytest
from corpus import NO_CORPUS, corpus
from hypothesis import given, settings
from hypothesis import strategies as st

import chatcodec as cc
from chatcodec.providers._wire import base64_form, standard_base64_json, to_standard_base64

TARGETS = ("openai", "anthropic", "openai-responses", "bedrock", "ollama", "cohere")


def same(body: bytes, target: str, model: str | None, max_tokens: int | None) -> bool:
    """Whether the direct path took ``body`` from gemini; it gives the general path's answer."""
    return either_path.same("gemini", body, target, model, max_tokens)


@pytest.mark.parametrize("target", TARGETS)
def test_many_recorded_requests_take_the_direct_path(target: str) -> None:
    paths = [param.values[0] for param in corpus("gemini", "request")]
    if not paths:
        pytest.skip(NO_CORPUS)
    taken = [path for path in paths if same(path.read_bytes(), target, "m", 1024)]
    # Many recorded requests hold media, Google's own tools or a JSON schema;
    # Cohere's preflight warns of an error result's flag, which it leaves out.
    assert len(taken) * (5 if target == "cohere" else 3) > len(paths), (len(taken), len(paths))


WEATHER = {
    "name": "get_weather",
    "description": "The weather in a city.",
    "parametersJsonSchema": {"type": "object", "properties": {"city": {"type": "string"}}},
}
CALL = {"functionCall": {"name": "get_weather", "args": {"city": "Paris"}, "id": "c1"}}
RESULT = {"functionResponse": {"name": "get_weather", "response": {"temp": 21}, "id": "c1"}}
BASE: dict[str, Any] = {
    "systemInstruction": {"role": "user", "parts": [{"text": "Be brief."}]},
    "contents": [
        {"role": "user", "parts": [{"text": "Weather in Paris?"}]},
        {"role": "model", "parts": [{**CALL, "thoughtSignature": "c2lnbmF0dXJl"}]},
        {"role": "user", "parts": [RESULT]},
        {"role": "model", "parts": [{"text": "21 degrees."}]},
        {"role": "user", "parts": [{"text": "Thanks."}]},
    ],
    "tools": [{"functionDeclarations": [WEATHER]}],
    "toolConfig": {"functionCallingConfig": {"mode": "AUTO"}},
    "generationConfig": {"responseModalities": ["TEXT"], "temperature": 0.5, "maxOutputTokens": 64},
}


def body(**changes: Any) -> bytes:
    values = {**BASE, **changes}
    return json.dumps({key: value for key, value in values.items() if value is not None}).encode()


# Taken by the targets named: Ollama joins the texts of a message and says so
# among the signatures of the calls before (the general path tells the two in
# order); Cohere's preflight warns of an error flag it leaves out; OpenAI Chat,
# Ollama and Cohere leave a PDF out, or write it in a form of their own.
JOINED = frozenset(TARGETS) - {"ollama"}
FLAGGED = frozenset(TARGETS) - {"cohere"}
PDF = frozenset(("anthropic", "openai-responses", "bedrock"))


# A declaration's parameters, and whether the direct path takes them.
SCHEMAS: list[tuple[dict[str, Any], bool]] = [
    (
        {"parameters": {"type": "OBJECT", "properties": {"a": {"type": "STRING"}}}},
        True,
    ),
    ({"parameters": {"type": 6, "properties": {"a": {"type": 1}}}}, True),
    ({"parameters": {"type": "OBJECT", "properties": {"a": {"type": 1}}}}, False),
    (
        {"parameters": {"type": "OBJECT", "properties": {"a": {"type": "string"}}}},
        False,
    ),
    ({"parameters": {"type": "STRING"}}, False),
    ({"parameters": {"type": "OBJECT"}, **WEATHER}, False),  # both: one kept
    ({}, False),  # no parameters
]


def declared(schemas: dict[str, Any]) -> dict[str, Any]:
    """A declaration of the weather tool with ``schemas`` as its parameters."""
    return {"name": "get_weather", **schemas}


def contents(*turns: Any) -> list[Any]:
    """The conversation of BASE up to its result, then ``turns``."""
    return [*BASE["contents"][:3], *turns]


class TestDeclines:
    """What is outside the usual shape goes the general way."""

    @pytest.mark.parametrize("target", TARGETS)
    def test_the_usual_request_is_taken(self, target: str) -> None:
        assert same(body(), target, "m", None)

    def test_the_model_comes_from_the_caller(self) -> None:
        out, report = cc.convert(body(), source="gemini", target="openai", model="gpt-4o")
        assert json.loads(out)["model"] == "gpt-4o"
        assert [loss.path for loss in report.losses] == [
            "$.extras.gemini.generationConfig.responseModalities",
            "$.messages[2].tool_calls[0].extras.gemini.thoughtSignature",
        ]

    @pytest.mark.parametrize("target", TARGETS)
    @pytest.mark.parametrize(
        ("changes", "taken"),
        [
            ({"systemInstruction": None}, True),
            ({"systemInstruction": {"parts": [{"text": "A."}, {"text": "B."}]}}, True),
            ({"systemInstruction": {"parts": [{"text": ""}]}}, False),  # kept as sent
            ({"systemInstruction": {"parts": []}}, False),
            ({"toolConfig": None}, True),
            ({"toolConfig": {"functionCallingConfig": {"mode": "VALIDATED"}}}, True),
            ({"toolConfig": {"functionCallingConfig": {"mode": "NONE"}}}, True),
            ({"toolConfig": {"functionCallingConfig": {"mode": "ANY"}}}, True),
            (
                {
                    "toolConfig": {
                        "functionCallingConfig": {
                            "mode": "ANY",
                            "allowedFunctionNames": ["get_weather"],
                        }
                    }
                },
                True,
            ),
            (
                {
                    "toolConfig": {
                        "functionCallingConfig": {
                            "mode": "ANY",
                            "allowedFunctionNames": ["get_weather", "other"],
                        }
                    }
                },
                False,  # kept beside the mode, and reported
            ),
            ({"toolConfig": {"includeServerSideToolInvocations": True}}, False),
            ({"generationConfig": None}, True),
            ({"generationConfig": {}}, True),
            ({"generationConfig": {"topP": 0.9, "stopSequences": ["END"]}}, True),
            ({"generationConfig": {"responseMimeType": "application/json"}}, True),
            ({"generationConfig": {"responseMimeType": "text/plain"}}, True),
            ({"generationConfig": {"stopSequences": [" "]}}, False),  # a blank stop
            ({"generationConfig": {"maxOutputTokens": 0}}, False),
            ({"generationConfig": {"temperature": 1.5}}, False),  # the targets' ranges differ
            ({"generationConfig": {"topK": 3}}, False),
            ({"generationConfig": {"candidateCount": 1}}, False),
            ({"generationConfig": {"thinkingConfig": {"thinkingBudget": 0}}}, False),
            ({"generationConfig": {"max_output_tokens": 64}}, False),
            ({"safetySettings": [{"category": "HARM_CATEGORY_HATE_SPEECH"}]}, True),
            ({"model": "gemini-2.5-flash"}, True),
            ({"cachedContent": "cachedContents/1"}, False),
            # Google's own tools beside no function, a mode and calls: the general way
            ({"tools": [{"googleSearch": {}}]}, False),
            ({"tools": [{"functionDeclarations": []}]}, False),
            ({"tools": [{"googleSearch": {}, "functionDeclarations": [WEATHER]}]}, False),
            ({"tools": [{"functionDeclarations": [{**WEATHER, "description": ""}]}]}, True),
            # beside functions, left out and reported by either path
            ({"tools": [{"functionDeclarations": [WEATHER]}, {"googleSearch": {}}]}, True),
            ({"tools": [{"googleSearch": {}}, {"functionDeclarations": [WEATHER]}]}, True),
            ({"tools": [{"functionDeclarations": [WEATHER]}, {"functionDeclarations": []}]}, True),
            (
                {
                    "tools": [
                        {"codeExecution": {}},
                        {"function_declarations": [{**WEATHER, "name": "a"}]},
                        {"functionDeclarations": [WEATHER]},
                    ]
                },
                False,  # the other spelling: kept for the way back
            ),
            ({"tools": [{"functionDeclarations": [WEATHER]}, "googleSearch"]}, False),
            (
                {
                    "tools": [
                        {"functionDeclarations": [{**WEATHER, "name": "a"}]},
                        {"functionDeclarations": [WEATHER]},
                    ]
                },
                True,
            ),
            (
                {
                    "tools": [
                        {
                            "functionDeclarations": [
                                {
                                    "name": "get_weather",
                                    "parameters_json_schema": WEATHER["parametersJsonSchema"],
                                }
                            ]
                        }
                    ]
                },
                True,
            ),
            *[
                ({"tools": [{"functionDeclarations": [declared(schemas)]}]}, taken)
                for schemas, taken in SCHEMAS
            ],
        ],
        ids=repr,
    )
    def test_fields(self, target: str, changes: dict[str, Any], taken: bool) -> None:
        assert same(body(**changes), target, "m", 64) is taken

    @pytest.mark.parametrize("target", TARGETS)
    def test_googles_tools_are_left_out_where_the_general_path_reports_them(
        self, target: str
    ) -> None:
        other = {**WEATHER, "name": "other", "description": ""}
        tools = [
            {"googleSearch": {}},
            {"functionDeclarations": [other, WEATHER]},
            {"codeExecution": {}},
            {"functionDeclarations": []},
        ]
        changed = body(tools=tools)
        assert same(changed, target, "m", 64)
        losses = cc.convert(changed, source="gemini", target=target, model="m")[1].losses
        lost = [(loss.path, loss.reason) for loss in losses if loss.path.startswith("$.tools")]
        run = f"a gemini tool {target} cannot run"
        assert lost == [
            ("$.tools[0]", run),
            ("$.tools[1].extras.gemini.description", f"a gemini field {target} has no place for"),
            ("$.tools[3]", run),
            ("$.tools[4]", run),
        ]

    @pytest.mark.parametrize("target", TARGETS)
    @pytest.mark.parametrize(
        ("turns", "taken"),
        [
            ([{"role": "model", "parts": [{"text": "A"}, {"text": "B"}]}], JOINED),
            ([{"role": "model", "parts": [{"text": "A"}]}, {"role": "model", "parts": []}], False),
            ([{"role": "model", "parts": [{"text": ""}]}], False),
            ([{"role": "model", "parts": [{"text": "A", "thought": True}]}], False),
            ([{"role": "model", "parts": [{"text": "A", "thoughtSignature": "c2ln"}]}], False),
            ([{"role": "model", "parts": [{"text": "A"}]}, {"role": "user", "parts": []}], False),
            (
                [
                    {"role": "model", "parts": [{"text": "A"}]},
                    {"role": "user", "parts": [{"text": "B"}, {"text": "C"}]},
                ],
                JOINED,
            ),
            *[
                (
                    [
                        {"role": "model", "parts": [{"text": "A"}]},
                        {"role": "user", "parts": [{"text": "What is this?"}, media]},
                    ],
                    taken,
                )
                for media, taken in [  # taken by every target, or those named
                    ({"inlineData": {"mimeType": "image/png", "data": "iVBORw=="}}, True),
                    ({"inline_data": {"mime_type": "image/png", "data": "iVBORw=="}}, True),
                    ({"inlineData": {"mimeType": "image/jpeg", "data": "_9j_4A"}}, True),
                    ({"inlineData": {"mimeType": "application/pdf", "data": "JVBERi0x"}}, PDF),
                    ({"inlineData": {"mimeType": "audio/mpeg", "data": "SUQz"}}, False),
                    ({"inlineData": {"mimeType": "image/png", "data": "iVBO\\nRw=="}}, False),
                    ({"inlineData": {"mimeType": "image/png", "data": "iVBO"}, "text": "A"}, False),
                    ({"fileData": {"mimeType": "image/png", "fileUri": "gs://b/a.png"}}, False),
                ]
            ],
        ],
        ids=repr,
    )
    def test_turns(self, target: str, turns: list[Any], taken: bool | frozenset[str]) -> None:
        if isinstance(taken, frozenset):
            taken = target in taken
        assert same(body(contents=contents(*turns)), target, "m", 64) is taken

    @pytest.mark.parametrize("target", TARGETS)
    @pytest.mark.parametrize(
        ("call", "result", "taken"),
        [
            (CALL, RESULT, True),
            (
                {"function_call": CALL["functionCall"]},
                {"function_response": RESULT["functionResponse"]},
                True,
            ),
            ({**CALL, "thought_signature": "c2ln"}, RESULT, True),
            ({**CALL, "thoughtSignature": "c2ln", "thought_signature": "c2ln"}, RESULT, False),
            ({**CALL, "function_call": CALL["functionCall"]}, RESULT, False),
            ({"functionCall": {"name": "get_weather", "args": {}}}, RESULT, False),  # no id
            (CALL, {"functionResponse": {**RESULT["functionResponse"], "id": "c2"}}, False),
            (CALL, {"functionResponse": {**RESULT["functionResponse"], "name": "other"}}, False),
            (
                CALL,
                {"functionResponse": {**RESULT["functionResponse"], "response": {"result": "21"}}},
                True,
            ),
            (
                CALL,
                {"functionResponse": {**RESULT["functionResponse"], "response": {"result": "{}"}}},
                False,
            ),
            (
                CALL,
                {"functionResponse": {**RESULT["functionResponse"], "response": {"result": 21}}},
                True,
            ),
            (
                CALL,
                {"functionResponse": {**RESULT["functionResponse"], "response": {"error": "no"}}},
                FLAGGED,
            ),
            (
                CALL,
                {"functionResponse": {**RESULT["functionResponse"], "response": {"error": " no"}}},
                False,  # a hint the general path writes for the way back
            ),
            (CALL, {**RESULT, "thoughtSignature": "c2ln"}, False),
        ],
        ids=repr,
    )
    def test_calls(self, target: str, call: Any, result: Any, taken: bool | frozenset[str]) -> None:
        if isinstance(taken, frozenset):
            taken = target in taken
        turns = [
            BASE["contents"][0],
            {"role": "model", "parts": [{"text": "Let me see."}, call]},
            {"role": "user", "parts": [result]},
        ]
        assert same(body(contents=turns), target, "m", 64) is taken

    @pytest.mark.parametrize("target", TARGETS)
    def test_results_in_two_contents_go_the_general_way(self, target: str) -> None:
        second = {"functionCall": {"name": "get_weather", "args": {"city": "Rome"}, "id": "c2"}}
        answer = {"functionResponse": {"name": "get_weather", "response": {}, "id": "c2"}}
        turns = [
            BASE["contents"][0],
            {"role": "model", "parts": [CALL, second]},
            {"role": "user", "parts": [RESULT]},
            {"role": "user", "parts": [answer]},
        ]
        assert not same(body(contents=turns), target, "m", 64)
        turns[2:] = [{"role": "user", "parts": [RESULT, answer]}]
        assert same(body(contents=turns), target, "m", 64)


_TEXT = st.sampled_from(["Hi", "Ünïcode ✓", "line\nbreak", '{"json": "text"}', "", " "])
_RESPONSES: st.SearchStrategy[dict[str, Any]] = st.sampled_from(
    [{"temp": 21}, {"result": "ok"}, {"result": "{}"}, {"error": "no"}, {}, {"result": 1}]
)


_MEDIA: st.SearchStrategy[dict[str, Any]] = st.sampled_from(
    [
        {"mimeType": "image/png", "data": "iVBORw=="},
        {"mimeType": "image/jpeg", "data": "_9j_4A"},
        {"mimeType": "image/gif", "data": "R0lG"},
        {"mimeType": "application/pdf", "data": "JVBERi0x"},
        {"mimeType": "audio/mpeg", "data": "SUQz"},
    ]
)


@st.composite
def requests(draw: st.DrawFn) -> bytes:
    """Gemini requests near the usual shape: most are taken, some are not."""
    turns: list[dict[str, Any]] = []
    pending: list[str] = []
    for i in range(draw(st.integers(0, 6))):
        parts: list[dict[str, Any]]
        answered = draw(st.booleans())
        if pending and answered:
            parts = [
                {"functionResponse": {"name": "get_weather", "response": draw(_RESPONSES), "id": c}}
                for c in pending
            ]
            turns.append({"role": "user", "parts": parts})
            pending = []
            continue
        role = draw(st.sampled_from(["user", "model"]))
        parts = [
            {"text": draw(_TEXT)} for _ in range(draw(st.integers(0 if role == "model" else 1, 2)))
        ]
        if role == "model":
            for j in range(draw(st.integers(0, 2))):
                call: dict[str, Any] = {
                    "functionCall": {"name": "get_weather", "args": {"city": "P"}, "id": f"c{i}{j}"}
                }
                if draw(st.booleans()):
                    call[draw(st.sampled_from(["thoughtSignature", "thought_signature"]))] = "c2ln"
                parts.append(call)
                pending.append(f"c{i}{j}")
        else:
            pending = []
            if draw(st.booleans()):
                parts.append({"inlineData": draw(_MEDIA)})
        turns.append({"role": role, "parts": parts})
    values: dict[str, Any] = {"contents": turns}
    if draw(st.booleans()):
        values["systemInstruction"] = {"parts": [{"text": draw(_TEXT)}]}
    if draw(st.booleans()):
        values["tools"] = [{"functionDeclarations": [WEATHER]}]
        own: st.SearchStrategy[dict[str, Any]] = st.sampled_from(
            [{"googleSearch": {}}, {"codeExecution": {}}]
        )  # left out
        for _ in range(draw(st.integers(0, 2))):
            at = draw(st.integers(0, len(values["tools"])))
            values["tools"].insert(at, draw(own))
        if draw(st.integers(0, 4)) == 0:
            values["tools"].remove({"functionDeclarations": [WEATHER]})  # Google's alone, or none
    if draw(st.booleans()):
        mode = draw(st.sampled_from(["AUTO", "ANY", "NONE", "VALIDATED"]))
        values["toolConfig"] = {"functionCallingConfig": {"mode": mode}}
    if draw(st.booleans()):
        value = st.sampled_from([0, 1, 0.5, 2, -1])
        keys = draw(
            st.sets(
                st.sampled_from(
                    [
                        "temperature",
                        "topP",
                        "maxOutputTokens",
                        "stopSequences",
                        "responseModalities",
                    ]
                )
            )
        )
        config: dict[str, Any] = {}
        for key in keys:
            if key == "stopSequences":
                config[key] = draw(st.lists(_TEXT, max_size=6))
            elif key == "maxOutputTokens":
                config[key] = draw(st.sampled_from([1, 64, 0]))
            elif key == "responseModalities":
                config[key] = ["TEXT"]
            else:
                config[key] = draw(value)
        values["generationConfig"] = config
    return json.dumps(values).encode()


@settings(max_examples=300, deadline=None)
@given(
    request=requests(),
    target=st.sampled_from(TARGETS),
    model=st.sampled_from([None, "m", "gemini-2.5-flash"]),
    max_tokens=st.sampled_from([None, 1024]),
)
def test_generated_requests_convert_the_same(
    request: bytes, target: str, model: str | None, max_tokens: int | None
) -> None:
    same(request, target, model, max_tokens)


@given(st.text(alphabet="ABCxyz019+/-_=\n\r", max_size=40))
def test_base64_is_made_standard_on_the_bytes_as_on_the_text(text: str) -> None:
    # Inline data is put in the standard alphabet, padded, without being decoded.
    data = f'"{text}"'.encode()
    expected = data if base64_form(text) is None else f'"{to_standard_base64(text)}"'.encode()
    assert standard_base64_json(data) == expected
