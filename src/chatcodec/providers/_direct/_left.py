"""What a source's messages hold that the targets leave out, reported as the general path does.

Two kinds of part are read by the general path into the canonical request
and then left out, whole or in part, by every target of the direct path:

- reasoning without text that only the source's provider can read (a
  Responses API reasoning item sent back without summary, its reasoning
  encrypted): OpenAI Chat, Anthropic and Bedrock leave it out; Ollama writes
  no thinking; Gemini and Cohere write an empty thought. Each reports it, or
  its signature (``Read.reasoned``);
- a block of the source's own that no target has a form for, kept by the
  general path as an opaque part (an Anthropic ``tool_reference`` in a tool
  result): left out and reported (``Read.blocks``).

The readers leave such parts out of the messages they build; :func:`reporting`
wraps a target's writer to write and report them.
"""

from __future__ import annotations

from ..._loss import (
    FOREIGN_SIGNATURE,
    Loss,
    block_lost,
    no_reasoning_field,
    part_lost,
    signature_lost,
    unchecked_signature,
)
from ..anthropic._encode_parts import UNSIGNED
from ._source import Read, Writer, place_message_losses

__all__ = ["reporting"]

_THOUGHT = frozenset(("gemini", "cohere"))  # the targets that write the empty thought
_SIGNATURE = frozenset(("ollama", "gemini", "cohere"))  # the targets that lose the signature alone


def _reasoning_lost(source: str, target: str) -> str:
    """What ``target``'s general encoder says of reasoning ``source`` signed, without text."""
    if target == "openai":
        return no_reasoning_field(target)
    if target == "anthropic":
        return UNSIGNED
    if target == "bedrock":
        return unchecked_signature(source, target)
    if target == "gemini":
        return FOREIGN_SIGNATURE
    return signature_lost(source)


def _block_lost(source: str, target: str) -> str:
    """What ``target``'s general encoder says of an opaque part of ``source``'s."""
    if target == "openai-responses":
        return part_lost(target, "opaque")
    return block_lost(source, target)


def reporting(write: Writer, source: str, target: str) -> Writer:
    """``write`` for pair ``source`` to ``target``, writing and reporting what was left out.

    Gemini and Cohere write the reasoning as an empty thought, before the
    message's text: their writers write a message's ``reasoning_content``
    so. The general encoder reports a part as it writes its message: after
    the keys only the source keeps, which every writer reports first, and
    before the rest. A request whose messages the writer reports on too goes
    the general way (a part's index there counts what was left out).
    """
    thought = target in _THOUGHT
    suffix = ".signature" if target in _SIGNATURE else ""
    reasoning = _reasoning_lost(source, target)
    block = _block_lost(source, target)

    def write_reporting(r: Read) -> tuple[bytes, list[Loss]]:
        if not r.reasoned and not r.blocks:
            return write(r)
        if thought:
            messages = r.body.messages
            for k in r.reasoned:
                messages[k].reasoning_content = ""
        out, losses = write(r)
        said = [(k, 0, Loss(f"$.messages[{k}].content[0]{suffix}", reasoning)) for k in r.reasoned]
        said += [(k, j, Loss(f"$.messages[{k}].content[{j}]", block)) for k, j in r.blocks]
        said.sort(key=lambda found: found[:2])  # in the messages' order
        place_message_losses(losses, [loss for _, _, loss in said])
        return out, losses

    return write_reporting
