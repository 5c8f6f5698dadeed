"""The typed fast paths of the request decoders build what the general ones do.

They read recorded requests, and what ``convert`` writes for their family
(read back for the preflight): both are checked here against the general
decoders, for Anthropic, Gemini and Responses; for OpenAI Chat, what
``convert`` writes (its recorded requests are checked in ``test_openai.py``).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from corpus import corpus, curated, needs_corpus
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_direct import PERF, requests, usual_requests

import chatcodec as cc
from chatcodec import providers
from chatcodec.providers.anthropic._decode import decode_request as general_anthropic
from chatcodec.providers.anthropic._fastreq import fast_request as fast_anthropic
from chatcodec.providers.gemini._decode import general_request as general_gemini
from chatcodec.providers.gemini._fastreq import fast_request as fast_gemini
from chatcodec.providers.openai._decode import general_request as general_openai
from chatcodec.providers.openai._fastreq import fast_request as fast_openai
from chatcodec.providers.openai_responses._fastreq import fast_request as fast_responses
from chatcodec.providers.openai_responses._request import general_request as general_responses
from strategies import strict_conversations

FAMILIES = providers.NAMES
TARGETS = ("anthropic", "gemini")
RECORDED = (*TARGETS, "openai-responses")
READ_BACK = (*RECORDED, "openai")
PATHS: dict[str, tuple[Callable[[bytes], Any], Callable[[bytes], cc.Request]]] = {
    "anthropic": (fast_anthropic, general_anthropic),
    "gemini": (fast_gemini, general_gemini),
    "openai": (fast_openai, general_openai),
    "openai-responses": (fast_responses, general_responses),
}


def same(body: bytes, family: str = "anthropic") -> bool:
    """Whether the fast path read ``body``; it gives what the general path gives."""
    fast_request, general_request = PATHS[family]
    fast = fast_request(body)
    try:
        general = general_request(body)
    except cc.ChatCodecError:
        assert fast is None
        return False
    assert providers.get(family).decode_request(body) == general
    if fast is None:
        return False
    assert fast == general
    # The keys kept as sent in the body's order: a family without a place for
    # them reports each one, in that order.
    assert [list(own) for own in (fast.extras or {}).values()] == [
        list(own) for own in (general.extras or {}).values()
    ]
    return True


def every_request() -> list[Any]:
    params = [
        pytest.param(family, param.values[0], id=f"{family}:{param.id}")
        for family in FAMILIES
        for param in corpus(family, "request")
    ]
    return needs_corpus(params, width=2)


def recorded(kind: str) -> list[Any]:
    params = [
        pytest.param(family, param.values[0], id=f"{family}:{param.id}")
        for family in RECORDED
        for param in (corpus(family, "request") if kind == "corpus" else curated(family, "request"))
    ]
    return needs_corpus(params, width=2) if kind == "corpus" else params


class TestRecorded:
    """Recorded Anthropic, Gemini and Responses requests."""

    @pytest.mark.parametrize(("family", "path"), recorded("corpus"))
    def test_corpus(self, family: str, path: Path) -> None:
        same(path.read_bytes(), family)

    @pytest.mark.parametrize(("family", "path"), recorded("curated"))
    def test_curated(self, family: str, path: Path) -> None:
        same(path.read_bytes(), family)


class TestReadBack:
    """What the encoders write from every family's requests, as convert reads it back."""

    @pytest.mark.parametrize("target", READ_BACK)
    @pytest.mark.parametrize(("family", "path"), every_request())
    def test_corpus(self, family: str, path: Path, target: str) -> None:
        for model, max_tokens in ((None, None), ("m", 1024)):
            try:
                out, _ = cc.convert(
                    path.read_bytes(),
                    source=family,
                    target=target,
                    model=model,
                    max_tokens=max_tokens,
                    check=False,
                )
            except cc.ChatCodecError:
                continue
            same(out, target)

    @pytest.mark.parametrize("target", TARGETS)
    @pytest.mark.parametrize("size", ["small", "medium", "large"])
    def test_benchmark_requests_outside_the_direct_path(self, size: str, target: str) -> None:
        # A setting the direct path does not take, and the target drops, sends
        # them the general way.
        key, value = {"anthropic": ("seed", 7), "gemini": ("user", "u1")}[target]
        body = json.loads((PERF / f"{size}.json").read_bytes())
        body[key] = value
        out, report = cc.convert(
            json.dumps(body).encode(), source="openai", target=target, max_tokens=1024
        )
        assert "$." + key in [loss.path for loss in report.losses]
        assert same(out, target)

    @settings(max_examples=300, deadline=None)
    @given(
        body=st.one_of(requests(), usual_requests()),
        target=st.sampled_from(READ_BACK),
        max_tokens=st.sampled_from([None, 64]),
    )
    def test_generated(self, body: bytes, target: str, max_tokens: int | None) -> None:
        try:
            out, _ = cc.convert(
                body, source="openai", target=target, max_tokens=max_tokens, check=False
            )
        except cc.ChatCodecError:
            return
        same(out, target)


class TestWritten:
    """Any strict conversation written by a family's encoder reads the same on both paths."""

    @settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(messages=strict_conversations(), family=st.sampled_from(RECORDED))
    def test_generated(self, messages: list[cc.Message], family: str) -> None:
        body = providers.get(family).encode_request(cc.Request(tuple(messages), model="m"))
        same(body, family)


class TestAnthropicDeclines:
    """What Anthropic's general path marks or keeps is left to it."""

    @pytest.mark.parametrize(
        "body",
        [
            b'{"system":"","messages":[{"role":"user","content":"a"}]}',
            b'{"messages":[{"role":"user","content":"a","cache":1}]}',
            b'{"messages":[{"role":"system","content":"s"},{"role":"user","content":"a"}]}',
            b'{"messages":[{"role":"assistant","content":[{"type":"server_tool_use","id":"s",'
            b'"name":"web_search","input":{}}]}]}',
            b'{"messages":[{"role":"user","content":[{"type":"image","source":{"type":"file",'
            b'"file_id":"f"}}]}]}',
            b'{"messages":[{"role":"user","content":[{"type":"document","source":{"type":"base64",'
            b'"media_type":"text/csv","data":"YQ=="}}]}]}',
            b'{"messages":[{"role":"user","content":[{"type":"image","source":{"type":"url",'
            b'"url":"data:image/png;base64,AA=="}}]}]}',
            b'{"messages":[{"role":"user","content":"a"}],"tool_choice":{"type":"auto","name":"f"}}',
            b'{"messages":[{"role":"user","content":"a"}],"tool_choice":{"type":"tool"}}',
            b'{"messages":[{"role":"user","content":"a"}],"model":null}',
            b'{"messages":[{"role":"user","content":[{"type":"text","text":"a",'
            b'"cache_control":{"type":"other"}}]}]}',
            b"[]",
            b"{",
        ],
    )
    def test_left_to_the_general_path(self, body: bytes) -> None:
        assert fast_anthropic(body) is None
        assert not same(body)

    @pytest.mark.parametrize(
        "body",
        [
            b'{"messages":[{"role":"user","content":"a"},{"role":"user","content":"b"}]}',
            b'{"messages":[{"role":"user","content":[{"type":"text","text":"a"},'
            b'{"type":"tool_result","tool_use_id":"t","content":"r"}]}]}',
            b'{"messages":[{"role":"assistant","content":[{"type":"tool_use","id":"t","name":"f",'
            b'"input":{}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"t",'
            b'"content":"r"}]},{"role":"user","content":[{"type":"text","text":"a"},'
            b'{"type":"tool_result","tool_use_id":"u","is_error":true}]}]}',
            b'{"messages":[{"role":"user","content":"a"}],"tools":[]}',
            b'{"messages":[{"role":"user","content":"a"}],"tools":[{"name":"f",'
            b'"description":"","input_schema":{"type":"object"},"strict":false}]}',
            b'{"messages":[{"role":"user","content":"a"}],"tools":[{"name":"f f",'
            b'"input_schema":{"type":"object"}}]}',
            b'{"messages":[{"role":"user","content":"a"}],"tools":[{"type":"web_search_20250305",'
            b'"name":"web_search","max_uses":2},{"name":"f","input_schema":{"type":"object"},'
            b'"cache_control":{"type":"ephemeral"},"defer_loading":true}]}',
            b'{"messages":[{"role":"user","content":"a"}],"metadata":{"user_id":"u"}}',
            b'{"messages":[{"role":"user","content":"a"}],"metadata":{"user_id":"u","x":1},'
            b'"top_k":"5","thinking":{"type":"enabled","budget_tokens":2048}}',
            b'{"messages":[{"role":"user","content":"a"}],"thinking":{"type":"adaptive"},'
            b'"top_k":3,"output_config":{"effort":"high","format":{"type":"json_schema",'
            b'"schema":{"type":"object"}}},"cache_control":{"type":"ephemeral"},'
            b'"container":"c","context_management":{"edits":[]},"mcp_servers":[],'
            b'"service_tier":"auto"}',
            b'{"messages":[{"role":"user","content":"a"}],"output_config":{"effort":"low"}}',
            b'{"system":[{"type":"text","text":"s","cache_control":{"type":"ephemeral",'
            b'"ttl":"1h"}}],"messages":[{"role":"user","content":[{"type":"text","text":"a",'
            b'"cache_control":{"type":"ephemeral"}},{"type":"image","source":{"type":"url",'
            b'"url":"https://x/y.png"},"cache_control":{"type":"ephemeral"}},'
            b'{"type":"document","source":{"type":"base64","media_type":"application/pdf",'
            b'"data":"JVBE"}},{"type":"document","source":{"type":"url","url":"https://x/y.pdf"}},'
            b'{"type":"document","source":{"type":"file","file_id":"f1"}},'
            b'{"type":"document","source":{"type":"text","media_type":"text/plain","data":"hi"}}]}]}',
            b'{"messages":[{"role":"assistant","content":[{"type":"redacted_thinking","data":"d"},'
            b'{"type":"tool_use","id":"t","name":"f","input":{},"caller":{"type":"direct"},'
            b'"cache_control":{"type":"ephemeral"}}]},{"role":"user","content":[{"type":'
            b'"tool_result","tool_use_id":"t","cache_control":{"type":"ephemeral"},"content":['
            b'{"type":"text","text":"r"},{"type":"image","source":{"type":"base64",'
            b'"media_type":"image/png","data":"AA=="}}]}]}],'
            b'"tool_choice":{"type":"tool","name":"f","disable_parallel_tool_use":false}}',
        ],
    )
    def test_taken_as_the_general_path_reads_them(self, body: bytes) -> None:
        assert same(body)

    @pytest.mark.parametrize(
        "body",
        [
            b'{"model":"m","max_tokens":9,"system":[{"type":"text","text":"s"}],'
            b'"messages":[{"role":"user","content":[{"type":"text","text":""}]},'
            b'{"role":"assistant","content":[{"type":"tool_use","id":"t","name":"f",'
            b'"input":{"a": 1}},{"type":"text","text":"x"}]},{"role":"user","content":'
            b'[{"type":"tool_result","tool_use_id":"t","content":"r","is_error":false}]}],'
            b'"tools":[{"name":"f","description":"","input_schema":{"type":"object"}}],'
            b'"tool_choice":{"type":"any","disable_parallel_tool_use":true}}',
            b'{"messages":[{"role":"assistant","content":[{"type":"thinking","thinking":"t",'
            b'"signature":"s"},{"type":"text","text":"a"}]}],"stop_sequences":["x"]}',
        ],
    )
    def test_hints_as_the_general_path_writes_them(self, body: bytes) -> None:
        assert same(body)


class TestGeminiDeclines:
    """What Gemini's general path marks, derives or keeps is left to it."""

    @pytest.mark.parametrize(
        "body",
        [
            b'{"contents":[{"parts":[{"text":"a"}]}]}',
            b'{"contents":[{"role":"user","parts":[{"text":"a","thought":false}]}]}',
            b'{"contents":[{"role":"user","parts":[{"text":"a","thoughtSignature":"s"}]}]}',
            b'{"contents":[{"role":"user","parts":[{"file_data":{"file_uri":"gs://b/f"}}]}]}',
            b'{"contents":[{"role":"model","parts":[{"functionCall":{"name":"f","args":{}}}]}]}',
            b'{"contents":[{"role":"model","parts":[{"functionCall":{"name":"f","args":{},'
            b'"id":"c"}}]},{"role":"user","parts":[{"functionResponse":{"name":"g",'
            b'"response":{"result":"r"},"id":"c"}}]}]}',
            b'{"contents":[{"role":"model","parts":[{"functionCall":{"name":"f","args":{},'
            b'"id":"c"}}]},{"role":"user","parts":[{"functionResponse":{"name":"f",'
            b'"response":{"result":"{x"},"id":"c"}}]}]}',
            b'{"contents":[{"role":"user","parts":[{"text":"a"}]}],'
            b'"system_instruction":{"parts":[{"text":"s"}]}}',
            b'{"contents":[]',
        ],
    )
    def test_left_to_the_general_path(self, body: bytes) -> None:
        assert fast_gemini(body) is None
        assert not same(body, "gemini")

    @pytest.mark.parametrize(
        "body",
        [
            b'{"contents":[{"role":"user","parts":[{"text":"a"}]}],"model":"m"}',
            b'{"contents":[{"role":"user","parts":[{"text":"a"}]}],"model":7}',
            b'{"contents":[{"role":"user","parts":[{"text":"a"}]}],"generationConfig":{}}',
            b'{"contents":[{"role":"user","parts":[{"text":"a"}]}],"tools":[{"functionDeclarations":'
            b'[{"name":"f","description":""}]},{"googleSearch":{}}],"toolConfig":'
            b'{"functionCallingConfig":{"mode":"ANY","allowedFunctionNames":["f"]}}}',
            b'{"contents":[{"role":"user","parts":[{"text":"a"}]}],"systemInstruction":'
            b'{"role":"system","parts":[{"text":"s"}]},"safetySettings":[],"cachedContent":"c",'
            b'"labels":{"k":"v"},"generationConfig":{"responseModalities":["TEXT"],'
            b'"thinkingConfig":{"thinkingBudget":128,"includeThoughts":true},'
            b'"responseMimeType":"application/json","responseJsonSchema":{"type":"object"},'
            b'"max_output_tokens":5}}',
            b'{"contents":[{"role":"user","parts":[{"text":"a"},{"fileData":{"fileUri":"gs://b/f"}},'
            b'{"fileData":{"mimeType":"image/png","fileUri":"gs://b/i"}},{"inlineData":'
            b'{"mimeType":"image/png","data":"_-8"}}]},{"role":"model","parts":[{"text":"r",'
            b'"thought":true,"thoughtSignature":"c2ln"},{"text":"x","thoughtSignature":"c2ln"},'
            b'{"functionCall":{"name":"f","args":{},"id":"c"},"thoughtSignature":"c2ln"}]},'
            b'{"role":"user","parts":[{"functionResponse":{"name":"f","response":{"result":"r"},'
            b'"id":"c"}}]},{"role":"model","parts":[{"text":"y","thoughtSignature":"c2ln"}]}]}',
        ],
    )
    def test_taken_as_the_general_path_reads_them(self, body: bytes) -> None:
        assert same(body, "gemini")

    @pytest.mark.parametrize(
        "body",
        [
            b'{"contents":[{"role":"user","parts":[{"text":""}]},{"role":"model","parts":'
            b'[{"functionCall":{"name":"f","args":{"a": 1},"id":"c"}},{"text":"t"}]},'
            b'{"role":"user","parts":[{"functionResponse":{"name":"f","response":{"error":"e"},'
            b'"id":"c"}}]},{"role":"model","parts":[{"text":"r","thought":true},{"text":"x"}]},'
            b'{"role":"user","parts":[{"inlineData":{"mimeType":"audio/wav","data":"AA=="}}]}],'
            b'"systemInstruction":{"parts":[{"text":"s"},{"text":"t"}]},'
            b'"tools":[{"functionDeclarations":[{"name":"f"}]}],'
            b'"toolConfig":{"functionCallingConfig":{"mode":"ANY"}},'
            b'"generationConfig":{"candidateCount":1,"responseMimeType":"text/plain","seed":3,'
            b'"topK":2,"presencePenalty":0.5,"frequencyPenalty":1}}',
        ],
    )
    def test_hints_as_the_general_path_writes_them(self, body: bytes) -> None:
        assert same(body, "gemini")


class TestResponsesDeclines:
    """What the Responses general path keeps opaque or as sent is left to it."""

    @pytest.mark.parametrize(
        "body",
        [
            b'{"input":[{"role":"assistant","content":[{"type":"output_text","text":"a",'
            b'"annotations":[]}]}]}',
            b'{"input":[{"type":"web_search_call","id":"w","status":"completed","action":{}}]}',
            b'{"input":[{"role":"user","content":""}]}',
            b'{"input":[{"role":"tool","content":"a"}]}',
            b'{"input":[{"type":"function_call","call_id":"c","name":"f","arguments":{}}]}',
            b'{"input":[{"type":"function_call_output","call_id":"c","output":"r","role":"user"}]}',
            b'{"input":[{"type":"reasoning","summary":[],"encrypted_content":null}]}',
            b'{"input":[{"role":"user","content":[{"type":"input_image","file_id":"f"}]}]}',
            b'{"input":[{"role":"system","content":[{"type":"input_text","text":""}]}]}',
            b'{"input":"a","model":null}',
            b'{"input":"a","moderation":true}',
            b'{"input":[{"type":"function_call","call_id":"c","name":"f","arguments":"{}",'
            b'"status":"completed","id":"fc"}]}',
            b"[]",
            b"{",
        ],
    )
    def test_left_to_the_general_path(self, body: bytes) -> None:
        assert fast_responses(body) is None
        assert not same(body, "openai-responses")

    @pytest.mark.parametrize(
        "body",
        [
            b'{"model":"m","input":"a","instructions":"s","max_output_tokens":5,"store":false,'
            b'"include":["reasoning.encrypted_content"],"previous_response_id":"r",'
            b'"reasoning":{"effort":"low"},"text":{"format":{"type":"json_object"}},'
            b'"tool_choice":"auto","parallel_tool_calls":true,"temperature":1,"top_p":0.5,'
            b'"stream":true,"user":"u"}',
            b'{"input":"","instructions":"","tools":[],"reasoning":{"effort":"x"},'
            b'"text":{"verbosity":"low"},"tool_choice":{"type":"function","name":"f"}}',
            b'{"input":[]}',
            b'{"input":[{"type":"message","role":"developer","content":[{"type":"input_text",'
            b'"text":"a"},{"type":"input_text","text":"b"}]},{"role":"system","content":"s",'
            b'"id":"i"},{"role":"user","content":[{"type":"input_text","text":"a"},'
            b'{"type":"input_image","image_url":"data:image/png;base64,AA==","detail":"low"},'
            b'{"type":"input_image","image_url":"https://x/y.png"},{"type":"input_file",'
            b'"file_data":"data:application/pdf;base64,AA==","filename":"f.pdf"},'
            b'{"type":"input_file","file_id":"f1"},{"type":"input_file","file_url":"https://x/f"},'
            b'{"type":"input_file","file_data":"AA=="}]}]}',
            b'{"input":[{"role":"user","content":"a"},{"type":"reasoning","id":"rs","summary":['
            b'{"type":"summary_text","text":"x"},{"type":"summary_text","text":"y"}],'
            b'"encrypted_content":"e"},{"type":"reasoning","summary":[]},{"role":"assistant",'
            b'"content":"t","phase":"final"},{"type":"function_call","call_id":"c","name":"f",'
            b'"arguments":"{}","namespace":"n"},'
            b'{"type":"function_call","call_id":"d","name":"g","arguments":"{x"},'
            b'{"type":"custom_tool_call","call_id":"e","name":"h","input":"raw"},'
            b'{"type":"function_call_output","call_id":"c","output":"r"},'
            b'{"type":"custom_tool_call_output","call_id":"e","output":[{"type":"input_text",'
            b'"text":"o"}]},{"type":"message","role":"assistant","content":"done"}]}',
        ],
    )
    def test_taken_as_the_general_path_reads_them(self, body: bytes) -> None:
        assert same(body, "openai-responses")

    def test_kept_keys_in_the_body_order(self) -> None:
        body = (
            b'{"store":false,"input":"a","background":true,"include":["file_search_call.results"]}'
        )
        assert same(body, "openai-responses")
        _, report = cc.convert(body, source="openai-responses", target="anthropic", model="m")
        assert [loss.path.rsplit(".", 1)[1] for loss in report.losses] == [
            "store",
            "background",
            "include",
        ]
