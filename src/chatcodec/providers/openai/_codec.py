"""The OpenAI Chat codec configured for one dialect: what ``providers.get("deepseek")`` gives.

It reads as the ``openai`` module does (one decoder reads every dialect) and
writes with its :class:`~._dialect.Dialect`; its ``NAME`` stays ``"openai"``,
the key of its fields in ``extras`` and of its endpoint and options.
"""

from __future__ import annotations

from typing import Any

from ..._content import ReasoningPart
from ..._exchange import Request, Response
from ..._loss import Loss
from ..._messages import AssistantMessage
from ..._problems import Problem
from ._check import check_request
from ._common import NAME
from ._decode import decode_request
from ._decode_assistant import decode_response
from ._dialect import Dialect
from ._encode import encode_request, encode_response
from ._stream import stream
from ._stream_encode import OpenAIStreamEncoder, encode_stream, stream_encoder

__all__ = ["DialectCodec"]

NO_REASONING = (
    "deepseek in thinking mode requires the reasoning of an assistant message with tool"
    " calls (reasoning_content) in every later request: this one has none"
)
# DeepSeek's model without thinking mode: its history needs no reasoning.
_DEEPSEEK_PLAIN = frozenset({"deepseek-chat"})


class DialectCodec:
    """The OpenAI Chat codec writing one dialect (see :data:`~._dialect.DIALECTS`).

    Examples
    --------
    >>> from chatcodec import providers
    >>> codec = providers.get("deepseek")
    >>> codec.NAME, codec.DIALECT.reasoning
    ('openai', 'reasoning_content')
    """

    __slots__ = ("DIALECT",)

    NAME = NAME
    decode_request = staticmethod(decode_request)
    decode_response = staticmethod(decode_response)
    stream = staticmethod(stream)

    def __init__(self, dialect: Dialect) -> None:
        self.DIALECT = dialect

    def __repr__(self) -> str:
        return f"<chatcodec codec openai, dialect {self.DIALECT.name!r}>"

    def encode_request(
        self, request: Request, *, losses: list[Loss] | None = None, **options: Any
    ) -> bytes:
        """Write a request body for the dialect (the options of ``openai.encode_request``)."""
        return encode_request(request, losses=losses, dialect=self.DIALECT, **options)

    def encode_response(self, response: Response, *, losses: list[Loss] | None = None) -> bytes:
        """Write a response body for the dialect."""
        return encode_response(response, losses=losses, dialect=self.DIALECT)

    def check_request(self, request: Request) -> list[Problem]:
        """OpenAI's preflight, and the rules the dialect adds."""
        problems = check_request(request)
        if self.DIALECT.name == "deepseek" and request.model not in _DEEPSEEK_PLAIN:
            problems.extend(_deepseek(request))
        return problems

    def stream_encoder(
        self, head: Response | None = None, *, losses: list[Loss] | None = None
    ) -> OpenAIStreamEncoder:
        """An encoder writing the dialect's stream (as ``openai.stream_encoder``)."""
        return stream_encoder(head, losses=losses, dialect=self.DIALECT)

    def encode_stream(self, response: Response, *, losses: list[Loss] | None = None) -> bytes:
        """A whole response written as the dialect's stream."""
        return encode_stream(response, losses=losses, dialect=self.DIALECT)


def _deepseek(request: Request) -> list[Problem]:
    problems = []
    for i, message in enumerate(request.messages):
        if type(message) is not AssistantMessage or not message.tool_calls:
            continue
        content = message.content
        if isinstance(content, str) or not any(type(p) is ReasoningPart for p in content or ()):
            problems.append(Problem(f"$.messages[{i}]", NO_REASONING, "warning"))
    return problems
