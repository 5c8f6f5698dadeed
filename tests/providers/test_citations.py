"""Citations: each family's form read into :class:`Citation` and written back, across families.

Constructed bodies follow each provider's documentation (Anthropic's citations
and search results guides, OpenAI's Chat and Responses API references, the
Gemini grounding guide, Bedrock's ``CitationsContentBlock``); recorded bodies
from the corpus are converted to every family and read back.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, ClassVar

import msgspec
import pytest
from corpus import CORPUS, HAVE_CORPUS, needs_corpus, random_sizes, run_stream
from hypothesis import given, settings
from hypothesis import strategies as st

from chatcodec import (
    AssistantMessage,
    Choice,
    Citation,
    CitationReceived,
    FinishReason,
    Response,
    TextPart,
    ValidationError,
    translate_stream,
)
from chatcodec.providers import anthropic, bedrock, gemini, get, openai, openai_responses
from chatcodec.providers._stream_writer import WIDENED

FAMILIES = ("openai", "anthropic", "gemini", "openai-responses", "bedrock", "ollama")


def parts_of(response: Response) -> list[TextPart]:
    """The text parts of the first answer."""
    message = response.message
    if message is None or not isinstance(message.content, tuple):
        return []
    return [p for p in message.content if type(p) is TextPart]


def cited(response: Response) -> list[Citation]:
    return [c for part in parts_of(response) for c in part.citations]


def answer(*parts: TextPart) -> Response:
    message = AssistantMessage(parts)
    return Response((Choice(message, FinishReason.STOP, None, 0),), id="r1", model="m")


def plain(citation: Citation) -> tuple[Any, ...]:
    """A citation's canonical fields, without extras."""
    return tuple(
        getattr(citation, name) for name in msgspec.structs.asdict(citation) if name != "extras"
    )


class TestModel:
    """A citation validates its fields; a text part takes only citations."""

    def test_valid(self) -> None:
        citation = Citation("url", start=0, end=5, url="https://a.example", title="A")
        part = TextPart("Hello", (citation,))
        assert msgspec.json.decode(msgspec.json.encode(part), type=TextPart) == part

    @pytest.mark.parametrize(
        ("fields", "path"),
        [
            ({"kind": "web"}, "$.kind"),
            ({"kind": "url", "start": -1}, "$.start"),
            ({"kind": "url", "start": 4, "end": 2}, "$.end"),
            ({"kind": "url", "end": 2}, "$.end"),
            ({"kind": "char", "document": "0"}, "$.document"),
            ({"kind": "url", "url": 3}, "$.url"),
        ],
    )
    def test_invalid(self, fields: dict[str, Any], path: str) -> None:
        with pytest.raises(ValidationError) as caught:
            Citation(**fields)
        assert path in str(caught.value)

    def test_part_takes_citations_only(self) -> None:
        with pytest.raises(ValidationError):
            TextPart("x", ("not a citation",))  # type: ignore[arg-type]


# Anthropic's documented locations (citations guide, search results guide).
CHAR = {
    "type": "char_location",
    "cited_text": "The grass is green.",
    "document_index": 0,
    "document_title": "Example Document",
    "start_char_index": 0,
    "end_char_index": 20,
}
PAGE = {
    "type": "page_location",
    "cited_text": "Water is essential for life.",
    "document_index": 1,
    "document_title": None,
    "start_page_number": 5,
    "end_page_number": 6,
}
BLOCK = {
    "type": "content_block_location",
    "cited_text": "The sky is blue.",
    "document_index": 2,
    "document_title": "Custom",
    "start_block_index": 0,
    "end_block_index": 1,
}
SEARCH = {
    "type": "search_result_location",
    "source": "https://docs.company.com/api-reference",
    "title": "API Reference",
    "cited_text": "All API requests must include an API key",
    "search_result_index": 0,
    "start_block_index": 0,
    "end_block_index": 0,
}
WEB = {
    "type": "web_search_result_location",
    "url": "https://en.wikipedia.org/wiki/Claude_Shannon",
    "title": "Claude Shannon - Wikipedia",
    "encrypted_index": "Eo8BCioIAhgBIiQyYjQ0OWJmZi1lNm..",
    "cited_text": "Claude Elwood Shannon (April 30, 1916 - February 24, 2001)",
}


def anthropic_body(*blocks: dict[str, Any]) -> bytes:
    return json.dumps(
        {
            "id": "msg_1",
            "type": "message",
            "role": "assistant",
            "model": "claude-sonnet-4-5",
            "content": list(blocks),
            "stop_reason": "end_turn",
            "stop_sequence": None,
            "usage": {"input_tokens": 10, "output_tokens": 5},
        }
    ).encode()


class TestAnthropic:
    """Text-block citations of every documented location."""

    BODY = anthropic_body(
        {"type": "text", "text": "According to the document, "},
        {"type": "text", "text": "the grass is green", "citations": [CHAR, PAGE]},
        {"type": "text", "text": " and the sky blue.", "citations": [BLOCK]},
        {"type": "text", "text": " Requests need a key.", "citations": [SEARCH, WEB]},
    )

    def test_read(self) -> None:
        parts = parts_of(anthropic.decode_response(self.BODY))
        char, page = parts[1].citations
        assert (char.kind, char.document, char.source_start, char.source_end) == ("char", 0, 0, 20)
        assert (char.quote, char.title, char.start) == (
            "The grass is green.",
            "Example Document",
            None,
        )
        assert (page.kind, page.source_start, page.source_end, page.title) == ("page", 5, 6, None)
        assert page.extras == {"anthropic": {"document_title": None}}
        assert parts[2].citations[0].kind == "block"
        search, web = parts[3].citations
        assert (search.kind, search.url, search.document) == ("search_result", SEARCH["source"], 0)
        assert (web.kind, web.url, web.title) == ("url", WEB["url"], WEB["title"])
        assert web.extras == {"anthropic": {"encrypted_index": WEB["encrypted_index"]}}

    def test_round_trip(self) -> None:
        response = anthropic.decode_response(self.BODY)
        losses: list[Any] = []
        assert json.loads(anthropic.encode_response(response, losses=losses)) == json.loads(
            self.BODY
        )
        assert losses == []

    def test_unknown_location_kept_as_sent(self) -> None:
        other = {"type": "a_future_location", "cited_text": "x"}
        body = anthropic_body({"type": "text", "text": "x", "citations": [CHAR, other]})
        part = parts_of(anthropic.decode_response(body))[0]
        assert part.citations == ()
        assert part.extras == {"anthropic": {"citations": [CHAR, other]}}
        assert json.loads(anthropic.encode_response(anthropic.decode_response(body))) == json.loads(
            body
        )

    def test_documents_to_bedrock_and_back(self) -> None:
        response = anthropic.decode_response(self.BODY)
        losses: list[Any] = []
        body = bedrock.encode_response(response, losses=losses)
        wire = json.loads(body)["output"]["message"]["content"]
        assert wire[1]["citationsContent"]["citations"][0]["location"] == {
            "documentChar": {"documentIndex": 0, "start": 0, "end": 20}
        }
        assert wire[1]["citationsContent"]["citations"][1]["location"] == {
            "documentPage": {"documentIndex": 1, "start": 5, "end": 6}
        }
        assert wire[3]["citationsContent"]["citations"][0]["source"] == SEARCH["source"]
        back = anthropic.decode_response(anthropic.encode_response(bedrock.decode_response(body)))
        # All but the web result, whose encrypted index Bedrock did not keep.
        assert [plain(c) for c in cited(back)] == [plain(c) for c in cited(response)][:-1]
        # What Bedrock has no place for, by its path: the web result's encrypted index.
        assert [loss.path for loss in losses if ".citations" in loss.path] == [
            "$.choices[0].message.content[3].citations[1].extras.anthropic.encrypted_index"
        ]

    def test_documents_to_openai_are_reported(self) -> None:
        response = anthropic.decode_response(self.BODY)
        losses: list[Any] = []
        body = json.loads(openai.encode_response(response, losses=losses))
        message = body["choices"][0]["message"]
        # The web citation goes, spanning its block's text within the whole content.
        (note,) = message["annotations"]
        start = message["content"].index(" Requests need a key.")
        assert note["url_citation"]["url"] == WEB["url"]
        assert (note["url_citation"]["start_index"], note["url_citation"]["end_index"]) == (
            start,
            len(message["content"]),
        )
        lost = {loss.path for loss in losses}
        for path in (
            "$.choices[0].message.content[1].citations[0]",
            "$.choices[0].message.content[1].citations[1]",
            "$.choices[0].message.content[2].citations[0]",
            "$.choices[0].message.content[3].citations[0]",
            "$.choices[0].message.content[3].citations[1].quote",
        ):
            assert path in lost

    def test_a_span_cuts_the_block(self) -> None:
        citation = Citation(
            "url",
            start=6,
            end=11,
            url="https://w.example",
            title="W",
            extras={"anthropic": {"encrypted_index": "Eo8B"}},
        )
        response = answer(TextPart("Hello world!", (citation,)))
        content = json.loads(anthropic.encode_response(response))["content"]
        assert [block["text"] for block in content] == ["Hello ", "world", "!"]
        assert "citations" not in content[0]
        assert "citations" not in content[2]
        assert content[1]["citations"][0]["url"] == "https://w.example"

    def test_request_takes_back_only_its_own_web_citations(self) -> None:
        from chatcodec import Request, UserMessage

        foreign = Citation("url", url="https://w.example", title="W")
        request = Request(
            model="claude",
            messages=(
                UserMessage("Hi"),
                AssistantMessage((TextPart("Yes.", (foreign,)),)),
                UserMessage("More"),
            ),
            max_tokens=10,
        )
        losses: list[Any] = []
        body = json.loads(anthropic.encode_request(request, losses=losses))
        assert "citations" not in body["messages"][1]["content"][0]
        assert [loss.path for loss in losses] == ["$.messages[1].content[0].citations[0]"]


RESPONSES = {
    "id": "resp_1",
    "object": "response",
    "created_at": 1741476542,
    "status": "completed",
    "model": "gpt-4.1",
    "output": [
        {
            "type": "message",
            "id": "msg_1",
            "status": "completed",
            "role": "assistant",
            "content": [
                {
                    "type": "output_text",
                    "text": "Héllo wörld, see the file.",
                    "annotations": [
                        {
                            "type": "url_citation",
                            "start_index": 0,
                            "end_index": 11,
                            "url": "https://example.com/?utm_source=openai",
                            "title": "Example",
                        },
                        {
                            "type": "file_citation",
                            "file_id": "file-2dtbBZdjtDKS8eqWxqbgDi",
                            "filename": "deep_research_blog.pdf",
                            "index": 26,
                        },
                        {
                            "type": "container_file_citation",
                            "container_id": "cntr_1",
                            "file_id": "cfile_1",
                            "filename": "chart.png",
                            "start_index": 13,
                            "end_index": 16,
                        },
                        {"type": "file_path", "file_id": "file-abc", "index": 20},
                    ],
                    "logprobs": [],
                }
            ],
        }
    ],
    "usage": {"input_tokens": 5, "output_tokens": 7, "total_tokens": 12},
}


class TestResponses:
    """output_text annotations: url, file, container file and file path."""

    BODY = json.dumps(RESPONSES).encode()

    def test_read_and_round_trip(self) -> None:
        response = openai_responses.decode_response(self.BODY)
        url, file, container, path = cited(response)
        assert (url.kind, url.start, url.end, url.title) == ("url", 0, 11, "Example")
        assert (file.kind, file.file_id, file.title, file.start, file.end) == (
            "file",
            "file-2dtbBZdjtDKS8eqWxqbgDi",
            "deep_research_blog.pdf",
            26,
            None,
        )
        assert container.extras == {
            "openai-responses": {"container_id": "cntr_1", "~type": "container_file_citation"}
        }
        assert path.extras == {"openai-responses": {"~type": "file_path"}}
        losses: list[Any] = []
        again = openai_responses.encode_response(response, losses=losses)
        assert json.loads(again) == RESPONSES
        assert losses == []

    def test_to_chat(self) -> None:
        response = openai_responses.decode_response(self.BODY)
        losses: list[Any] = []
        message = json.loads(openai.encode_response(response, losses=losses))["choices"][0][
            "message"
        ]
        assert message["annotations"] == [
            {
                "type": "url_citation",
                "url_citation": {
                    "url": "https://example.com/?utm_source=openai",
                    "title": "Example",
                    "start_index": 0,
                    "end_index": 11,
                },
            }
        ]
        lost = [loss.path for loss in losses if "citations" in loss.path]
        assert "$.choices[0].message.content[0].citations[1]" in lost
        back = openai.decode_response(openai.encode_response(response))
        assert [plain(c) for c in cited(back)] == [plain(cited(response)[0])]


class TestOpenAIChat:
    """Message annotations (url_citation) on the text of the message."""

    BODY: ClassVar[dict[str, Any]] = {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 1,
        "model": "gpt-4o-search-preview",
        "choices": [
            {
                "index": 0,
                "message": {
                    "role": "assistant",
                    "content": "Paris is the capital [1].",
                    "refusal": None,
                    "annotations": [
                        {
                            "type": "url_citation",
                            "url_citation": {
                                "end_index": 24,
                                "start_index": 21,
                                "title": "Paris",
                                "url": "https://en.wikipedia.org/wiki/Paris",
                            },
                        }
                    ],
                },
                "finish_reason": "stop",
            }
        ],
    }

    def test_read_and_round_trip(self) -> None:
        data = json.dumps(self.BODY).encode()
        response = openai.decode_response(data)
        (citation,) = cited(response)
        assert (citation.start, citation.end, citation.url) == (
            21,
            24,
            "https://en.wikipedia.org/wiki/Paris",
        )
        assert json.loads(openai.encode_response(response)) == self.BODY

    def test_to_anthropic_and_gemini(self) -> None:
        response = openai.decode_response(json.dumps(self.BODY).encode())
        losses: list[Any] = []
        blocks = json.loads(anthropic.encode_response(response, losses=losses))["content"]
        # Anthropic's web citations need the index it encrypted: said, not made up.
        assert blocks == [{"type": "text", "text": "Paris is the capital [1]."}]
        assert "$.choices[0].message.content[0].citations[0]" in [loss.path for loss in losses]
        grounded = json.loads(gemini.encode_response(response))["candidates"][0][
            "groundingMetadata"
        ]
        assert grounded == {
            "groundingChunks": [
                {"web": {"uri": "https://en.wikipedia.org/wiki/Paris", "title": "Paris"}}
            ],
            "groundingSupports": [
                {
                    "segment": {"startIndex": 21, "endIndex": 24, "text": "[1]"},
                    "groundingChunkIndices": [0],
                }
            ],
        }


GEMINI = {
    "candidates": [
        {
            "content": {
                "role": "model",
                "parts": [
                    {"text": "Thinking...", "thought": True},
                    {"text": "Café prices rose 5%. Tea fell."},
                ],
            },
            "finishReason": "STOP",
            "groundingMetadata": {
                "webSearchQueries": ["cafe prices"],
                "searchEntryPoint": {"renderedContent": "<div></div>"},
                "groundingChunks": [
                    {"web": {"uri": "https://a.example", "title": "a.example"}},
                    {"web": {"uri": "https://b.example", "title": "b.example"}},
                    {"web": {"uri": "https://c.example", "title": "c.example"}},
                ],
                "groundingSupports": [
                    {
                        # Bytes into the candidate's answer text: "é" is two bytes.
                        "segment": {"endIndex": 21, "text": "Café prices rose 5%."},
                        "groundingChunkIndices": [0, 1],
                        "confidenceScores": [0.9, 0.7],
                    },
                    {
                        "segment": {"startIndex": 22, "endIndex": 31, "text": "Tea fell."},
                        "groundingChunkIndices": [1],
                    },
                ],
            },
        }
    ],
    "usageMetadata": {"promptTokenCount": 3, "candidatesTokenCount": 9, "totalTokenCount": 12},
    "modelVersion": "gemini-2.5-flash",
}


class TestGemini:
    """Grounding supports, in UTF-8 bytes of the candidate's text, as character spans."""

    BODY = json.dumps(GEMINI).encode()

    def test_read(self) -> None:
        response = gemini.decode_response(self.BODY)
        (part,) = parts_of(response)
        spans = [(c.start, c.end, c.url) for c in part.citations]
        assert spans == [
            (0, 20, "https://a.example"),
            (0, 20, "https://b.example"),
            (21, 30, "https://b.example"),
        ]
        assert part.text[21:30] == "Tea fell."
        assert part.citations[0].extras == {"gemini": {"~at": [0, 0], "confidenceScore": 0.9}}
        # The rest of the metadata stays with the candidate; the unused chunk too.
        kept = response.choices[0].extras
        assert kept is not None
        assert kept["gemini"]["groundingMetadata"]["groundingChunks"] == [
            {"web": {"uri": "https://c.example", "title": "c.example"}}
        ]

    def test_fast_and_general_paths_agree(self) -> None:
        from chatcodec.providers.gemini._decode import general_response

        assert gemini.decode_response(self.BODY) == general_response(self.BODY)

    def test_round_trip(self) -> None:
        response = gemini.decode_response(self.BODY)
        losses: list[Any] = []
        assert json.loads(gemini.encode_response(response, losses=losses)) == GEMINI
        assert losses == []

    def test_part_index(self) -> None:
        body = json.loads(self.BODY)
        candidate = body["candidates"][0]
        for support in candidate["groundingMetadata"]["groundingSupports"]:
            support["segment"]["partIndex"] = 1  # its own part: the same offsets here
        response = gemini.decode_response(json.dumps(body).encode())
        assert [(c.start, c.end) for c in cited(response)] == [(0, 20), (0, 20), (21, 30)]
        assert json.loads(gemini.encode_response(response)) == body

    def test_a_span_inside_a_character_keeps_the_metadata(self) -> None:
        body = json.loads(self.BODY)
        body["candidates"][0]["groundingMetadata"]["groundingSupports"][0]["segment"][
            "endIndex"
        ] = 4
        response = gemini.decode_response(json.dumps(body).encode())
        assert cited(response) == []
        assert json.loads(gemini.encode_response(response)) == body

    def test_to_responses_and_back(self) -> None:
        response = gemini.decode_response(self.BODY)
        losses: list[Any] = []
        body = openai_responses.encode_response(response, losses=losses)
        notes = json.loads(body)["output"][-1]["content"][0]["annotations"]
        assert [(n["start_index"], n["end_index"], n["url"]) for n in notes] == [
            (0, 20, "https://a.example"),
            (0, 20, "https://b.example"),
            (21, 30, "https://b.example"),
        ]
        lost = {loss.path for loss in losses}
        assert "$.choices[0].extras.gemini.groundingMetadata" in lost
        assert "$.choices[0].message.content[1].citations[0].extras.gemini.confidenceScore" in lost
        back = gemini.decode_response(
            gemini.encode_response(openai_responses.decode_response(body))
        )
        assert [(c.start, c.end, c.url, c.title) for c in cited(back)] == [
            (c.start, c.end, c.url, c.title) for c in cited(response)
        ]


BEDROCK = {
    "output": {
        "message": {
            "role": "assistant",
            "content": [
                {
                    "citationsContent": {
                        "content": [{"text": "The sky is blue."}],
                        "citations": [
                            {
                                "title": "report.pdf",
                                "sourceContent": [{"text": "The sky is blue."}],
                                "location": {
                                    "documentPage": {"documentIndex": 0, "start": 1, "end": 2}
                                },
                            },
                            {
                                "location": {
                                    "web": {
                                        "url": "https://example.com/sky",
                                        "domain": "example.com",
                                    }
                                }
                            },
                        ],
                    }
                },
                {"text": " That is all."},
            ],
        }
    },
    "stopReason": "end_turn",
    "usage": {"inputTokens": 3, "outputTokens": 5, "totalTokens": 8},
}


class TestBedrock:
    """citationsContent blocks: their text, and what it cites."""

    BODY = json.dumps(BEDROCK).encode()

    def test_read_and_round_trip(self) -> None:
        response = bedrock.decode_response(self.BODY)
        page, web = parts_of(response)[0].citations
        assert (page.kind, page.document, page.source_start, page.source_end) == ("page", 0, 1, 2)
        assert (page.title, page.quote) == ("report.pdf", "The sky is blue.")
        assert (web.kind, web.url) == ("url", "https://example.com/sky")
        assert web.extras == {"bedrock": {"location": {"web": {"domain": "example.com"}}}}
        losses: list[Any] = []
        assert json.loads(bedrock.encode_response(response, losses=losses)) == BEDROCK
        assert losses == []

    def test_to_anthropic(self) -> None:
        response = bedrock.decode_response(self.BODY)
        losses: list[Any] = []
        blocks = json.loads(anthropic.encode_response(response, losses=losses))["content"]
        assert blocks[0]["citations"][0] == {
            "type": "page_location",
            "cited_text": "The sky is blue.",
            "document_index": 0,
            "document_title": "report.pdf",
            "start_page_number": 1,
            "end_page_number": 2,
        }
        # The web citation: Anthropic takes back only the web results it encrypted.
        assert [loss.path for loss in losses if "citations" in loss.path] == [
            "$.choices[0].message.content[0].citations[1].extras.bedrock.location",
            "$.choices[0].message.content[0].citations[1]",
        ]

    def test_ollama_reports_every_citation(self) -> None:
        response = bedrock.decode_response(self.BODY)
        losses: list[Any] = []
        get("ollama").encode_response(response, losses=losses)
        assert [loss.path for loss in losses if "citations" in loss.path] == [
            "$.choices[0].message.content[0].citations[0]",
            "$.choices[0].message.content[0].citations[1]",
        ]


# -- recorded bodies ------------------------------------------------------------

_KEYS = (b'"citations":[{', b"groundingSupports", b'"url_citation"', b"citationsContent")


def _recorded() -> list[Any]:
    if not HAVE_CORPUS:
        return []
    import csv

    apis = {
        "anthropic-messages": "anthropic",
        "gemini-generateContent": "gemini",
        "openai-chat": "openai",
        "openai-responses": "openai-responses",
        "bedrock-converse": "bedrock",
    }
    with (CORPUS / "MANIFEST.tsv").open() as f:
        rows = list(csv.DictReader(f, delimiter="\t"))
    out = []
    for row in rows:
        family = apis.get(row["api"])
        if family is None or row["kind"] != "response" or row["http_status"] != "200":
            continue
        data = (CORPUS / row["path"]).read_bytes()
        if any(key in data for key in _KEYS):
            out.append(pytest.param(family, CORPUS / row["path"], id=row["path"][:90]))
    return out


RECORDED = _recorded()
_WHOLE = re.compile(r"\$\.choices\[0\]\.message\.content\[\d+\]\.citations\[\d+\]")


def _key(citation: Citation) -> tuple[Any, ...]:
    return (citation.kind, citation.url, citation.file_id, citation.document, citation.source_start)


class TestRecorded:
    """Every recorded answer with citations, written by each family and read back."""

    def test_there_are_some(self) -> None:
        if not HAVE_CORPUS:
            pytest.skip("no corpus")
        assert len(RECORDED) >= 20

    @pytest.mark.parametrize("target", FAMILIES)
    @pytest.mark.parametrize(("family", "path"), needs_corpus(RECORDED, 2))
    def test_carried_or_reported(self, family: str, path: Path, target: str) -> None:
        response = get(family).decode_response(path.read_bytes())
        source: list[tuple[str, Citation]] = []
        message = response.message
        if message is not None and isinstance(message.content, tuple):
            for k, part in enumerate(message.content):
                if type(part) is TextPart:
                    source += [
                        (f"$.choices[0].message.content[{k}].citations[{i}]", c)
                        for i, c in enumerate(part.citations)
                    ]
        losses: list[Any] = []
        back = get(target).decode_response(get(target).encode_response(response, losses=losses))
        lost = {loss.path for loss in losses if _WHOLE.fullmatch(loss.path)}
        expected = {_key(c) for where, c in source if where not in lost}
        assert expected <= {_key(c) for c in cited(back)}
        if target == "ollama":
            assert len(lost) == len(source)


# -- streams ----------------------------------------------------------------------


def _sse(*payloads: dict[str, Any]) -> bytes:
    return b"".join(
        b"event: " + p["type"].encode() + b"\ndata: " + json.dumps(p).encode() + b"\n\n"
        for p in payloads
    )


ANTHROPIC_STREAM = _sse(
    {
        "type": "message_start",
        "message": {
            "id": "msg_1",
            "type": "message",
            "role": "assistant",
            "model": "claude",
            "content": [],
            "stop_reason": None,
            "usage": {"input_tokens": 3, "output_tokens": 1},
        },
    },
    {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
    {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Look: "}},
    {"type": "content_block_stop", "index": 0},
    {
        "type": "content_block_start",
        "index": 1,
        "content_block": {"type": "text", "text": "", "citations": []},
    },
    {
        "type": "content_block_delta",
        "index": 1,
        "delta": {"type": "citations_delta", "citation": WEB},
    },
    {
        "type": "content_block_delta",
        "index": 1,
        "delta": {"type": "text_delta", "text": "Shannön "},
    },
    {
        "type": "content_block_delta",
        "index": 1,
        "delta": {"type": "text_delta", "text": "was born in 1916."},
    },
    {"type": "content_block_stop", "index": 1},
    {"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 9}},
    {"type": "message_stop"},
)


class TestStreams:
    """Citations through stream decoders, encoders and translations, at every split."""

    def test_anthropic_at_every_split(self) -> None:
        events, response = run_stream(anthropic.stream, ANTHROPIC_STREAM)
        cites = [e.citation for e in events if type(e) is CitationReceived]
        assert [(c.start, c.end, c.url) for c in cites] == [(6, 31, WEB["url"])]
        assert [c.url for c in cited(response)] == [WEB["url"]]
        for cut in range(1, len(ANTHROPIC_STREAM)):
            assert run_stream(anthropic.stream, ANTHROPIC_STREAM, [cut]) == (events, response)

    @pytest.mark.parametrize("target", ["anthropic", "openai-responses", "bedrock", "openai"])
    def test_translated_to_a_family_that_cites(self, target: str) -> None:
        _, source = run_stream(anthropic.stream, ANTHROPIC_STREAM)
        outs = set()
        for sizes in (
            [len(ANTHROPIC_STREAM)],
            [1] * len(ANTHROPIC_STREAM),
            random_sizes(len(ANTHROPIC_STREAM), 3),
        ):
            translator = translate_stream("anthropic", target)
            out, at = b"", 0
            for size in sizes:
                out += translator.feed(ANTHROPIC_STREAM[at : at + size])
                at += size
            tail, report = translator.finish()
            outs.add(out + tail)
            _, got = run_stream(get(target).stream, out + tail)
            assert got.text == source.text
            carried = cited(got)
            assert [c.url for c in carried] == [WEB["url"]]
            if target in ("openai-responses", "openai"):
                # Its span: the cited block's text in the output text.
                assert [(c.start, c.end) for c in carried] == [(6, 31)]
                assert any("encrypted_index" in path for path in report.paths)
            else:
                # A whole-block family: the citation goes on the open text block,
                # which the text before it joined (a stream has no block edges): said.
                (part,) = [p for p in parts_of(got) if p.citations]
                assert part.text.endswith("Shannön was born in 1916.")
                assert WIDENED in [loss.reason for loss in report.losses]
        assert len(outs) == 1  # the same bytes at every split

    def test_translated_to_a_family_that_does_not(self) -> None:
        translator = translate_stream("anthropic", "ollama")
        translator.feed(ANTHROPIC_STREAM)
        _, report = translator.finish()
        assert "ollama streams carry no citations" in [loss.reason for loss in report.losses]

    def test_translated_to_gemini_grounding(self) -> None:
        # Gemini's stream grounds the candidate in its last chunk: the citation's
        # span, counted in the streamed text, becomes a segment of that text.
        _, source = run_stream(anthropic.stream, ANTHROPIC_STREAM)
        translator = translate_stream("anthropic", "gemini")
        out = translator.feed(ANTHROPIC_STREAM)
        tail, report = translator.finish()
        _, got = run_stream(get("gemini").stream, out + tail)
        assert got.text == source.text
        (part,) = [p for p in parts_of(got) if p.citations]
        (citation,) = part.citations
        assert citation.url == WEB["url"]
        assert citation.start is not None
        assert citation.end is not None
        assert part.text[citation.start : citation.end].endswith("Shannön was born in 1916.")
        assert "gemini has no place for a citation's quote" in [
            loss.reason for loss in report.losses
        ]

    @pytest.mark.parametrize("family", ["anthropic", "openai-responses", "bedrock"])
    def test_whole_response_as_stream(self, family: str) -> None:
        codec = get(family)
        response = codec.decode_response(
            {
                "anthropic": TestAnthropic.BODY,
                "openai-responses": TestResponses.BODY,
                "bedrock": TestBedrock.BODY,
            }[family]
        )
        raw = codec.encode_stream(response)
        events, got = run_stream(codec.stream, raw)
        assert [plain(c) for c in cited(got)] == [plain(c) for c in cited(response)]
        for seed in (1, 2):
            assert run_stream(codec.stream, raw, random_sizes(len(raw), seed)) == (events, got)

    def test_responses_annotation_events_at_every_split(self) -> None:
        raw = openai_responses.encode_stream(openai_responses.decode_response(TestResponses.BODY))
        events, response = run_stream(openai_responses.stream, raw)
        cites = [e.citation for e in events if type(e) is CitationReceived]
        assert [(c.kind, c.start) for c in cites] == [
            ("url", 0),
            ("file", 26),
            ("file", 13),
            ("file", 20),
        ]
        step = max(1, len(raw) // 97)
        for cut in range(1, len(raw), step):
            assert run_stream(openai_responses.stream, raw, [cut]) == (events, response)


# -- the property -----------------------------------------------------------------

_TEXT = st.text(st.characters(codec="utf-8"), min_size=1, max_size=30)
_URL = st.from_regex(r"https://[a-z]{1,8}\.example/[a-z0-9]{0,6}", fullmatch=True)


@st.composite
def _cited_parts(draw: st.DrawFn) -> TextPart:
    text = draw(_TEXT)
    citations = []
    for _ in range(draw(st.integers(1, 3))):
        start = draw(st.integers(0, len(text) - 1))
        end = draw(st.integers(start + 1, len(text)))
        title = draw(st.text(st.characters(codec="ascii", categories=("L", "N")), max_size=10))
        citations.append(Citation("url", start=start, end=end, url=draw(_URL), title=title))
    return TextPart(text, tuple(citations))


_SPANNED = ("openai", "openai-responses", "gemini")  # families that give spans


@settings(max_examples=60, deadline=None)
@given(
    part=_cited_parts(),
    pair=st.sampled_from([(a, b) for a in _SPANNED for b in _SPANNED if a != b]),
)
def test_a_citation_survives_a_to_b_to_a(part: TextPart, pair: tuple[str, str]) -> None:
    a, b = (get(name) for name in pair)
    first = a.decode_response(a.encode_response(answer(part)))
    there = b.decode_response(b.encode_response(first))
    again = a.decode_response(a.encode_response(there))
    assert sorted(plain(c) for c in cited(again)) == sorted(plain(c) for c in cited(first))
    assert sorted(plain(c) for c in cited(first)) == sorted(plain(c) for c in part.citations)


_OPENROUTER = (
    "other/stream/pydantic-ai__models__test_openrouter__"
    "test_openrouter_web_search_annotations_stream__00.json"
)


class TestChatStream:
    """A Chat stream's ``annotations`` delta (OpenRouter's web search): events, and back."""

    def test_recorded(self) -> None:
        if not HAVE_CORPUS:
            pytest.skip("no corpus")
        recorded = json.loads((CORPUS / _OPENROUTER).read_bytes())
        raw = b"".join(b"data: " + json.dumps(e).encode() + b"\n\n" for e in recorded["events"])
        raw += b"data: [DONE]\n\n"
        events, response = run_stream(openai.stream, raw)
        cites = [e.citation for e in events if type(e) is CitationReceived]
        assert len(cites) == len(cited(response)) > 0
        assert [plain(c) for c in cites] == [plain(c) for c in cited(response)]
        for seed in (5, 6):
            assert run_stream(openai.stream, raw, random_sizes(len(raw), seed)) == (
                events,
                response,
            )
        encoder = openai.stream_encoder(Response(id=response.id, model=response.model))
        again = b"".join(encoder.encode(e) for e in events) + encoder.finish()
        _, back = run_stream(openai.stream, again)
        assert [plain(c) for c in cited(back)] == [plain(c) for c in cited(response)]
