"""chatcodec: the fastest faithful wire codec for LLM chat messages.

Canonical message types are frozen :class:`msgspec.Struct` s in a union tagged
on ``role``; tool-call arguments stay the raw bytes of a JSON object.  Each
message checks its own rules when built or decoded; :class:`Conversation` and
:func:`validate` check the order of messages; :func:`validate_untrusted` is the
trust boundary for what end users send.  :func:`encode` and :func:`decode`
read and write the canonical form in JSON and msgpack.
"""

from ._codec import Format, decode, encode
from ._content import AudioPart, ContentPart, FilePart, ImagePart, TextPart
from ._conversation import Conversation, Transcript
from ._errors import (
    ArgumentTypeError,
    ChatCodecError,
    DecodeError,
    EncodeError,
    MissingArgumentError,
    OrderingError,
    StreamError,
    UntrustedInputError,
    ValidationError,
)
from ._jsonl import JsonlReader, iter_jsonl, write_jsonl
from ._lenient import Decoded, decode_lenient
from ._messages import (
    AssistantMessage,
    BaseMessage,
    DeveloperMessage,
    Message,
    SystemMessage,
    ToolMessage,
    UserMessage,
    assistant,
    developer,
    system,
    tool_result,
    user,
)
from ._problems import Problem, Severity
from ._roles import Role
from ._stream import (
    StreamedToolCalls,
    ToolCallAccumulator,
    ToolCallArgumentsDelta,
    ToolCallEvent,
    ToolCallStarted,
)
from ._tools import (
    InvalidToolCall,
    ToolCall,
    ToolCallDelta,
    ToolDefinition,
    ToolResult,
    parse_tool_call,
    tool_call,
)
from ._usage import FinishReason, Usage
from ._validate import Policy, validate, validate_untrusted

__version__ = "0.1.0"

__all__ = [
    "ArgumentTypeError",
    "AssistantMessage",
    "AudioPart",
    "BaseMessage",
    "ChatCodecError",
    "ContentPart",
    "Conversation",
    "DecodeError",
    "Decoded",
    "DeveloperMessage",
    "EncodeError",
    "FilePart",
    "FinishReason",
    "Format",
    "ImagePart",
    "InvalidToolCall",
    "JsonlReader",
    "Message",
    "MissingArgumentError",
    "OrderingError",
    "Policy",
    "Problem",
    "Role",
    "Severity",
    "StreamError",
    "StreamedToolCalls",
    "SystemMessage",
    "TextPart",
    "ToolCall",
    "ToolCallAccumulator",
    "ToolCallArgumentsDelta",
    "ToolCallDelta",
    "ToolCallEvent",
    "ToolCallStarted",
    "ToolDefinition",
    "ToolMessage",
    "ToolResult",
    "Transcript",
    "UntrustedInputError",
    "Usage",
    "UserMessage",
    "ValidationError",
    "assistant",
    "decode",
    "decode_lenient",
    "developer",
    "encode",
    "iter_jsonl",
    "parse_tool_call",
    "system",
    "tool_call",
    "tool_result",
    "user",
    "validate",
    "validate_untrusted",
    "write_jsonl",
]
