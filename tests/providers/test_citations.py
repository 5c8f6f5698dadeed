"""Citations: each family's form read into :class:`Citation` and written back, across families.

Constructed bodies follow each provider's documentation (Anthropic's citations
and search results guides, OpenAI's Chat and Responses API references, the
Gemini grounding guide, Bedrock's ``CitationsContentBlock``, Cohere's RAG and
tool use citations guides); recorded bodies
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
from readers import sse_payloads

import chatcodec as cc
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
from chatcodec.providers import anthropic, bedrock, cohere, gemini, get, openai, openai_responses
from chatcodec.providers._stream_writer import WIDENED
from official import check_cohere_citations, check_response

FAMILIES = ("openai", "anthropic", "gemini", "openai-responses", "bedrock", "ollama", "cohere")


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


# Cohere's documented citations (RAG citations guide: document sources; tool use
# citations guide: tool sources), one with two sources, one of a web document.
COHERE_TEXT = "The tallest penguins are emperor penguins, which live in Antarctica."
COHERE_BODY = json.dumps(
    {
        "id": "c1",
        "message": {
            "role": "assistant",
            "content": [{"type": "text", "text": COHERE_TEXT}],
            "citations": [
                {
                    "start": 25,
                    "end": 41,
                    "text": "emperor penguins",
                    "sources": [
                        {
                            "type": "document",
                            "id": "doc:0",
                            "document": {
                                "id": "doc:0",
                                "snippet": "Emperor penguins are the tallest.",
                                "title": "Tall penguins",
                            },
                        }
                    ],
                    "type": "TEXT_CONTENT",
                },
                {
                    "start": 57,
                    "end": 67,
                    "text": "Antarctica",
                    "sources": [
                        {
                            "type": "document",
                            "id": "doc:1",
                            "document": {
                                "id": "doc:1",
                                "snippet": "Emperor penguins only live in Antarctica.",
                                "title": "Penguin habitats",
                            },
                        },
                        {
                            "type": "document",
                            "id": "web-3",
                            "document": {
                                "title": "Emperor penguin",
                                "url": "https://en.wikipedia.org/wiki/Emperor_penguin",
                            },
                        },
                        {
                            "type": "tool",
                            "id": "search_k2x:0",
                            "tool_output": {"habitat": "Antarctica"},
                        },
                    ],
                    "type": "TEXT_CONTENT",
                },
            ],
        },
        "finish_reason": "COMPLETE",
        "usage": {"tokens": {"input_tokens": 12, "output_tokens": 14}},
    },
    separators=(",", ":"),
).encode()


class TestCohere:
    """Cohere's message citations: each source one citation, back as one list."""

    def test_read(self) -> None:
        response = cohere.decode_response(COHERE_BODY)
        (part,) = parts_of(response)
        assert [
            (c.kind, c.start, c.end, c.source_id, c.document, c.title, c.url)
            for c in part.citations
        ] == [
            ("char", 25, 41, "doc:0", 0, "Tall penguins", None),
            ("char", 57, 67, "doc:1", 1, "Penguin habitats", None),
            (
                "url",
                57,
                67,
                "web-3",
                None,
                "Emperor penguin",
                json.loads(COHERE_BODY)["message"]["citations"][1]["sources"][1]["document"]["url"],
            ),
            ("tool", 57, 67, "search_k2x:0", None, None, None),
        ]
        assert [part.text[c.start : c.end] for c in part.citations[:2]] == [
            "emperor penguins",
            "Antarctica",
        ]
        # Nothing left in the message's extras: the list is the parts'.
        assert response.message is not None
        assert response.message.extras is None
        assert part.citations[3].extras == {
            "cohere": {"tool_output": {"habitat": "Antarctica"}, "~with": True}
        }

    def test_round_trip(self) -> None:
        losses: list[Any] = []
        again = cohere.encode_response(cohere.decode_response(COHERE_BODY), losses=losses)
        assert again == COHERE_BODY
        assert losses == []

    def test_tool_citations_of_the_guide(self) -> None:
        path = Path(__file__).parent.parent / "data/providers/cohere/response"
        body = (path / "docs__tool-use__citations.json").read_bytes()
        (part,) = parts_of(cohere.decode_response(body))
        assert [(c.kind, c.source_id) for c in part.citations] == [
            ("tool", "get_weather_15c2p6g19s8f:0"),
            ("tool", "get_weather_n01pkywy0p2w:0"),
        ]
        # Its text says "It's" where the span counted "It is": the text is kept as sent.
        assert part.citations[0].extras["cohere"]["~text"] == "24°C"  # type: ignore[index]
        assert cohere.encode_response(cohere.decode_response(body)) == body

    @pytest.mark.parametrize(
        "change",
        [
            {"type": "PLAN"},
            {"sources": []},
            {"sources": [{"type": "web", "id": "x"}]},
            {"start": "25"},
            {"start": 41, "end": 25},
            {"content_index": 3},
            {"score": 0.9},
        ],
        ids=lambda change: next(iter(change)),
    )
    def test_another_shape_is_kept_as_sent(self, change: dict[str, Any]) -> None:
        data = json.loads(COHERE_BODY)
        data["message"]["citations"][0].update(change)
        body = json.dumps(data, separators=(",", ":")).encode()
        response = cohere.decode_response(body)
        assert cited(response) == []
        assert response.message is not None
        assert response.message.extras == {"cohere": {"citations": data["message"]["citations"]}}
        assert cohere.encode_response(response) == body

    def test_to_openai_the_web_document_goes(self) -> None:
        losses: list[Any] = []
        out = openai.encode_response(cohere.decode_response(COHERE_BODY), losses=losses)
        message = json.loads(out)["choices"][0]["message"]
        (note,) = message["annotations"]
        assert note["url_citation"] == {
            "end_index": 67,
            "start_index": 57,
            "title": "Emperor penguin",
            "url": "https://en.wikipedia.org/wiki/Emperor_penguin",
        }
        lost = {loss.path for loss in losses}
        where = "$.choices[0].message.content[0].citations"
        assert {f"{where}[0]", f"{where}[1]", f"{where}[3]", f"{where}[2].source_id"} <= lost
        back = cohere.decode_response(cohere.encode_response(openai.decode_response(out)))
        assert [plain(c)[:8] for c in cited(back)] == [
            plain(c)[:8] for c in cited(cohere.decode_response(COHERE_BODY))[2:3]
        ]

    def test_anthropic_documents_to_cohere_and_back(self) -> None:
        response = anthropic.decode_response(TestAnthropic.BODY)
        losses: list[Any] = []
        body = json.loads(cohere.encode_response(response, losses=losses))
        sources = [c["sources"][0] for c in body["message"]["citations"]]
        # The documents by their index, as Cohere names a document sent without an id.
        assert [s.get("id") for s in sources] == ["doc:0", "doc:1", "doc:2", "doc:0", None]
        assert sources[0]["document"] == {"id": "doc:0", "title": "Example Document"}
        # Each block is a content item: a citation spans its item, named by content_index.
        first = body["message"]["citations"][0]
        text = body["message"]["content"][first["content_index"]]["text"]
        assert text[first["start"] : first["end"]] == "the grass is green" == first["text"]
        assert [c["content_index"] for c in body["message"]["citations"]] == [1, 1, 2, 3, 3]
        lost = {loss.path for loss in losses}
        where = "$.choices[0].message.content[1].citations[0]"
        assert {f"{where}.quote", f"{where}.source_start", f"{where}.source_end"} <= lost
        # A search result and a web page are documents with a url: read back as web citations.
        back = cohere.decode_response(json.dumps(body).encode())
        assert [(c.kind, c.document, c.url) for c in cited(back)] == [
            ("char", 0, None),
            ("char", 1, None),
            ("char", 2, None),
            ("url", 0, SEARCH["source"]),
            ("url", None, WEB["url"]),
        ]

    @pytest.mark.parametrize(
        ("family", "body"),
        [
            ("cohere", COHERE_BODY),
            ("anthropic", TestAnthropic.BODY),
            ("openai", json.dumps(TestOpenAIChat.BODY).encode()),
            ("openai-responses", TestResponses.BODY),
            ("gemini", TestGemini.BODY),
            ("bedrock", TestBedrock.BODY),
        ],
        ids=lambda value: value if type(value) is str else "",
    )
    def test_what_cohere_types_take(self, family: str, body: bytes) -> None:
        """Every family's citations written by Cohere, in a body and in stream events."""
        response = get(family).decode_response(body)
        written, _ = cc.convert(body, source=family, target="cohere", kind="response")
        check_response("cohere", written)
        if family != "cohere":
            assert b'"citations"' in written  # each family has a citation Cohere takes
        for _, data in sse_payloads(cohere.encode_stream(response)):
            event = json.loads(data)
            if event["type"] == "citation-start":
                check_cohere_citations([event["delta"]["message"]["citations"]])

    def test_a_user_citation_is_reported(self) -> None:
        from chatcodec import Request, UserMessage

        part = TextPart("Hi", (Citation("url", url="https://a.example"),))
        losses: list[Any] = []
        cohere.encode_request(Request((UserMessage((part,)),), "m"), losses=losses)
        assert [loss.path for loss in losses] == ["$.messages[0].content[0].citations[0]"]

    def test_a_request_history_keeps_its_citations(self) -> None:
        message = json.loads(COHERE_BODY)["message"]
        body = json.dumps(
            {"model": "command-a-03-2025", "messages": [message]}, separators=(",", ":")
        ).encode()
        request = cohere.decode_request(body)
        assert len(request.messages[0].content[0].citations) == 4  # type: ignore[union-attr, index]
        assert cohere.encode_request(request) == body


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


_KEYED = ("url", "file_id", "document", "source_start")


def _key(citation: Citation, lost: set[str] | frozenset[str] = frozenset()) -> tuple[Any, ...]:
    kind = "url" if citation.kind == "search_result" and "source_start" in lost else citation.kind
    return (kind, *(None if name in lost else getattr(citation, name) for name in _KEYED))


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
        paths = {loss.path for loss in losses}
        lost = {path for path in paths if _WHOLE.fullmatch(path)}
        # A field reported lost (a source range Cohere has no place for) is not expected back.
        expected = {
            _key(c, {name for name in _KEYED if f"{where}.{name}" in paths})
            for where, c in source
            if where not in lost
        }
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

    @pytest.mark.parametrize(
        "target", ["anthropic", "openai-responses", "bedrock", "openai", "cohere"]
    )
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
            if target in ("openai-responses", "openai", "cohere"):
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

    @pytest.mark.parametrize("family", ["anthropic", "openai-responses", "bedrock", "cohere"])
    def test_whole_response_as_stream(self, family: str) -> None:
        codec = get(family)
        response = codec.decode_response(
            {
                "anthropic": TestAnthropic.BODY,
                "openai-responses": TestResponses.BODY,
                "bedrock": TestBedrock.BODY,
                "cohere": COHERE_BODY,
            }[family]
        )
        raw = codec.encode_stream(response)
        events, got = run_stream(codec.stream, raw)
        assert [plain(c) for c in cited(got)] == [plain(c) for c in cited(response)]
        for seed in (1, 2):
            assert run_stream(codec.stream, raw, random_sizes(len(raw), seed)) == (events, got)

    def test_cohere_citation_events_at_every_split(self) -> None:
        response = cohere.decode_response(COHERE_BODY)
        raw = cohere.encode_stream(response)
        events, got = run_stream(cohere.stream, raw)
        assert got == response
        cites = [e.citation for e in events if type(e) is CitationReceived]
        assert cites == list(cited(response))
        step = max(1, len(raw) // 97)
        for cut in range(1, len(raw), step):
            assert run_stream(cohere.stream, raw, [cut]) == (events, got)
        # Its events written again by the encoder: the same citations, in place.
        encoder = cohere.stream_encoder(Response(id=response.id))
        again = encoder.encode_all(events) + encoder.finish()
        assert [plain(c) for c in cited(run_stream(cohere.stream, again)[1])] == [
            plain(c) for c in cites
        ]

    def test_cohere_spans_count_the_answer_so_far(self) -> None:
        # Two text items (a block each, from Bedrock or Anthropic): a citation of the
        # second counts from its item's start on the wire, from the answer's in events.
        response = answer(
            TextPart("First. "),
            TextPart("Then cited.", (Citation("char", start=5, end=10, document=2),)),
        )
        raw = cohere.encode_stream(response)
        assert b'"content_index":1' in raw
        events, got = run_stream(cohere.stream, raw)
        (event,) = [e.citation for e in events if type(e) is CitationReceived]
        assert (event.start, event.end, event.source_id) == (12, 17, "doc:2")
        assert [(c.start, c.end) for c in cited(got)] == [(5, 10)]

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


_SPANNED = ("openai", "openai-responses", "gemini", "cohere")  # families that give spans


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
