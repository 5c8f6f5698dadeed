"""A gateway built on chatcodec: each API's clients in front of the other API.

- ``POST /v1/chat/completions`` speaks OpenAI Chat Completions to its clients (the
  ``openai`` SDK, any OpenAI-compatible tool) and forwards to an Anthropic Messages API.
- ``POST /v1/messages`` speaks Anthropic Messages to its clients (the ``anthropic``
  SDK, coding agents) and forwards to an OpenAI Chat Completions API.

Requests, answers, streams and errors are translated by chatcodec: the client's body is
decoded by its family's codec and sent with :func:`chatcodec.http.build_request`; a
non-streamed answer goes back through :func:`chatcodec.convert`, a stream through
:func:`chatcodec.translate_stream` as its bytes arrive; an upstream error
(:func:`chatcodec.http.read_error`) goes back with its HTTP status, its ``Retry-After``
and an error body in the client's own shape. chatcodec does no I/O: Starlette serves,
httpx calls the upstream.

Run it (the ``examples`` dependency group: starlette, uvicorn, httpx)::

    ANTHROPIC_API_KEY=... OPENAI_API_KEY=... python examples/gateway.py --port 8080

then point a client at it: ``OpenAI(base_url="http://127.0.0.1:8080/v1")`` reaches
Claude, ``Anthropic(base_url="http://127.0.0.1:8080")`` reaches OpenAI.
``ANTHROPIC_BASE_URL`` and ``OPENAI_BASE_URL`` point the gateway at other upstreams.
``--structured-output tool`` sends an OpenAI client's JSON schema to Claude as one tool
the model must call and answers with its arguments as the message's text, for Claude
models that have no structured output (the SDK's ``parse()`` reads it as from OpenAI).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

import httpx
import msgspec
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request as Incoming
from starlette.responses import Response, StreamingResponse
from starlette.routing import Route

import chatcodec as cc
from chatcodec import http, providers

__all__ = ["Upstream", "create_app", "main"]


@dataclass(frozen=True)
class Upstream:
    """Where one family's requests go: the family, its base URL and the gateway's key.

    ``structured_output="tool"``: a request's JSON schema goes as one tool the model
    must call, and its call comes back as the answer (see :func:`chatcodec.answer_as_tool`).
    """

    family: str
    base_url: str
    api_key: str | None = None
    structured_output: cc.StructuredOutput = "native"


def error_response(speaks: str, error: cc.ProviderError) -> Response:
    """An error in the client's family: its status, body shape and wait (``http.build_error``)."""
    answer = http.build_error(speaks, error)
    return Response(answer.body, status_code=answer.status, headers=dict(answer.headers.items()))


def refusal(speaks: str, status: int, message: str) -> Response:
    """The gateway's own error: a request it cannot pass on, or an upstream it cannot reach."""
    return error_response(speaks, cc.ProviderError("gateway", status=status, message=message))


def stream_error(speaks: str, error: cc.ProviderError | cc.StreamError) -> bytes:
    """An error event in the client's stream (the status is sent already)."""
    return http.build_error_event(speaks, error)


async def relay(
    client: httpx.AsyncClient, incoming: Incoming, speaks: str, upstream: Upstream, max_tokens: int
) -> Response:
    """Read the client's request, send it upstream, and answer in the client's family."""
    try:
        request = providers.get(speaks).decode_request(await incoming.body())
    except cc.ChatCodecError as error:  # names the path and the rule, never content
        return refusal(speaks, 400, str(error))
    if not request.messages:  # every upstream refuses it: answered here, not forwarded
        rule = "must hold at least one message - at `$.messages`"
        return refusal(speaks, 400, rule)
    if request.max_tokens is None:  # Anthropic requires a limit; OpenAI clients may omit it
        request = msgspec.structs.replace(request, max_tokens=max_tokens)
    shape = upstream.structured_output
    if shape == "tool":
        try:
            request, _ = cc.answer_as_tool(request)
        except cc.ChatCodecError as error:  # a schema no tool can take, a tool of its name
            return refusal(speaks, 400, str(error))
    options: dict[str, Any] = {}
    if upstream.family == "openai":
        options["include_usage"] = True  # the usage an Anthropic stream reports
    try:
        sent = http.build_request(
            upstream.family,
            request,
            api_key=upstream.api_key,
            base_url=upstream.base_url,
            **options,
        )
    except cc.ChatCodecError as error:  # what the upstream's family cannot be sent
        return refusal(speaks, 400, str(error))
    outgoing = client.build_request(sent.method, sent.url, headers=sent.headers, content=sent.body)
    try:
        answer = await client.send(outgoing, stream=True)
    except httpx.HTTPError as error:
        # Which upstream and why (the error's kind, never the request or the key).
        host = httpx.URL(upstream.base_url).host
        kind = type(error).__name__
        cause = f"the {upstream.family} upstream at {host} could not be reached ({kind})"
        return refusal(speaks, 502, cause)
    if not 200 <= answer.status_code < 300 or not sent.stream:
        try:
            body = await answer.aread()
        finally:
            await answer.aclose()
        if not 200 <= answer.status_code < 300:
            failure = http.read_error(upstream.family, answer.status_code, answer.headers, body)
            return error_response(speaks, failure)
        try:
            out, _ = cc.convert(
                body,
                source=upstream.family,
                target=speaks,
                kind="response",
                structured_output=shape,
            )
        except cc.ProviderError as error:  # an error body sent with a 2xx status
            return error_response(speaks, error)
        except cc.ChatCodecError:
            return refusal(speaks, 502, "the upstream's answer was malformed")
        return Response(out, media_type="application/json")
    target_options: dict[str, Any] = {}
    if speaks == "openai":
        wanted = ((request.extras or {}).get("openai") or {}).get("stream_options") or {}
        target_options["include_usage"] = bool(wanted.get("include_usage"))
    translator = cc.translate_stream(
        upstream.family, speaks, structured_output=shape, **target_options
    )

    async def translated() -> AsyncIterator[bytes]:
        try:
            async for chunk in answer.aiter_bytes():
                out = translator.feed(chunk)
                if out:
                    yield out
            out = translator.flush()
            if out:
                yield out
            # A stream cut off raises here: it is never closed as if it had ended.
            tail, _ = translator.finish()
            yield tail
        except cc.StreamError as error:
            yield stream_error(speaks, error)
        except httpx.HTTPError:
            yield stream_error(speaks, cc.StreamError("the upstream stream broke off"))
        finally:
            await answer.aclose()

    return StreamingResponse(
        translated(), media_type="text/event-stream", headers={"cache-control": "no-cache"}
    )


def create_app(
    *,
    anthropic: Upstream | None = None,
    openai: Upstream | None = None,
    max_tokens: int = 4096,
    timeout: float = 600.0,
) -> Starlette:
    """The gateway's ASGI app.

    Parameters
    ----------
    anthropic : Upstream, optional
        Where ``/v1/chat/completions`` sends its requests (Anthropic's API by default).
    openai : Upstream, optional
        Where ``/v1/messages`` sends its requests (OpenAI's API by default).
    max_tokens : int, default 4096
        The output limit sent to Anthropic when an OpenAI client sets none.
    timeout : float, default 600
        Seconds the upstream has to answer (httpx's timeout).
    """
    to_anthropic = anthropic or Upstream("anthropic", http.base_url("anthropic"))
    to_openai = openai or Upstream("openai", http.base_url("openai"))
    clients: list[httpx.AsyncClient] = []

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        async with httpx.AsyncClient(timeout=timeout) as client:
            clients.append(client)
            yield
            clients.clear()

    def endpoint(speaks: str, upstream: Upstream) -> Callable[[Incoming], Awaitable[Response]]:
        async def handle(incoming: Incoming) -> Response:
            return await relay(clients[0], incoming, speaks, upstream, max_tokens)

        return handle

    return Starlette(
        routes=[
            Route("/v1/chat/completions", endpoint("openai", to_anthropic), methods=["POST"]),
            Route("/v1/messages", endpoint("anthropic", to_openai), methods=["POST"]),
        ],
        lifespan=lifespan,
    )


def main(argv: list[str] | None = None) -> None:
    """Serve the gateway (keys and base URLs from the environment)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8080)
    parser.add_argument(
        "--structured-output",
        choices=("native", "tool"),
        default="native",
        help="tool: an OpenAI client's JSON schema goes to Claude as a tool it must call",
    )
    args = parser.parse_args(argv)
    for name, route in (
        ("ANTHROPIC_API_KEY", "/v1/chat/completions"),
        ("OPENAI_API_KEY", "/v1/messages"),
    ):
        if not os.environ.get(name):
            print(
                f"gateway: warning: {name} is not set: {route} forwards without a key, "
                "and the upstream will refuse it unless it needs none",
                file=sys.stderr,
            )
    app = create_app(
        anthropic=Upstream(
            "anthropic",
            os.environ.get("ANTHROPIC_BASE_URL") or http.base_url("anthropic"),
            os.environ.get("ANTHROPIC_API_KEY"),
            args.structured_output,
        ),
        openai=Upstream(
            "openai",
            os.environ.get("OPENAI_BASE_URL") or http.base_url("openai"),
            os.environ.get("OPENAI_API_KEY"),
        ),
    )
    uvicorn.run(app, host=args.host, port=args.port)


if __name__ == "__main__":
    main()
