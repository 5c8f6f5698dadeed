"""chatcodec: the fastest faithful wire codec for LLM chat messages.

Canonical message types are frozen :class:`msgspec.Struct` s in a union tagged
on ``role``; tool-call arguments stay the raw bytes of a JSON object.  Each
message checks its own rules when built or decoded; :class:`Conversation` and
:func:`validate` check the order of messages; :func:`validate_untrusted` is the
trust boundary for what end users send.  :func:`encode` and :func:`decode`
read and write the canonical form in JSON and msgpack.
"""

from . import providers
from ._answer_tool import ANSWER_TOOL, StructuredOutput, answer_as_tool, answer_from_tool
from ._cache import CachePoint
from ._codec import Format, decode, encode, read_transcript, to_builtins
from ._content import (
    AssistantPart,
    AudioPart,
    Citation,
    ContentPart,
    FilePart,
    FileReference,
    ImagePart,
    McpResource,
    OpaquePart,
    ReasoningPart,
    RefusalPart,
    TextPart,
)
from ._control import ControlRecord, UnknownPart, UnknownRecord, branch_switch, mode_change
from ._conversation import Conversation, Entry, Transcript
from ._convert import convert
from ._errors import (
    ArgumentTypeError,
    ChatCodecError,
    DecodeError,
    DepthError,
    EncodeError,
    LossError,
    MissingArgumentError,
    NotFoundError,
    OrderingError,
    ProviderError,
    StreamError,
    UntrustedInputError,
    ValidationError,
)
from ._events import (
    CitationReceived,
    Finished,
    PartReceived,
    ReasoningDelta,
    RefusalDelta,
    StreamEvent,
    TextDelta,
    ToolCallCompleted,
    UsageReported,
)
from ._exchange import (
    Choice,
    ProviderTool,
    Reasoning,
    Request,
    Response,
    ResponseFormat,
    Tool,
    ToolChoice,
)
from ._files import resolve_file_references, resolve_image_files
from ._jsonl import JsonlReader, iter_jsonl, write_jsonl
from ._lenient import Decoded, decode_lenient
from ._loss import Loss, LossReport
from ._messages import (
    AssistantMessage,
    BaseMessage,
    DeveloperMessage,
    Message,
    SystemMessage,
    ToolMessage,
    ToolResult,
    UserMessage,
    assistant,
    developer,
    system,
    tool_result,
    user,
)
from ._paths import key_step
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
    ToolResultDetails,
    parse_tool_call,
    tool_call,
)
from ._translate import StreamTranslator, translate_stream
from ._usage import FinishReason, Usage
from ._validate import Policy, validate, validate_untrusted
from .bulk import BulkResult, LineProblem, convert_lines
from .providers._lower import to_request

__version__ = "0.1.0"

__all__ = [
    "ANSWER_TOOL",
    "ArgumentTypeError",
    "AssistantMessage",
    "AssistantPart",
    "AudioPart",
    "BaseMessage",
    "BulkResult",
    "CachePoint",
    "ChatCodecError",
    "Choice",
    "Citation",
    "CitationReceived",
    "ContentPart",
    "ControlRecord",
    "Conversation",
    "DecodeError",
    "Decoded",
    "DepthError",
    "DeveloperMessage",
    "EncodeError",
    "Entry",
    "FilePart",
    "FileReference",
    "FinishReason",
    "Finished",
    "Format",
    "ImagePart",
    "InvalidToolCall",
    "JsonlReader",
    "LineProblem",
    "Loss",
    "LossError",
    "LossReport",
    "McpResource",
    "Message",
    "MissingArgumentError",
    "NotFoundError",
    "OpaquePart",
    "OrderingError",
    "PartReceived",
    "Policy",
    "Problem",
    "ProviderError",
    "ProviderTool",
    "Reasoning",
    "ReasoningDelta",
    "ReasoningPart",
    "RefusalDelta",
    "RefusalPart",
    "Request",
    "Response",
    "ResponseFormat",
    "Role",
    "Severity",
    "StreamError",
    "StreamEvent",
    "StreamTranslator",
    "StreamedToolCalls",
    "StructuredOutput",
    "SystemMessage",
    "TextDelta",
    "TextPart",
    "Tool",
    "ToolCall",
    "ToolCallAccumulator",
    "ToolCallArgumentsDelta",
    "ToolCallCompleted",
    "ToolCallDelta",
    "ToolCallEvent",
    "ToolCallStarted",
    "ToolChoice",
    "ToolDefinition",
    "ToolMessage",
    "ToolResult",
    "ToolResultDetails",
    "Transcript",
    "UnknownPart",
    "UnknownRecord",
    "UntrustedInputError",
    "Usage",
    "UsageReported",
    "UserMessage",
    "ValidationError",
    "answer_as_tool",
    "answer_from_tool",
    "assistant",
    "branch_switch",
    "convert",
    "convert_lines",
    "decode",
    "decode_lenient",
    "developer",
    "encode",
    "iter_jsonl",
    "key_step",
    "mode_change",
    "parse_tool_call",
    "providers",
    "read_transcript",
    "resolve_file_references",
    "resolve_image_files",
    "system",
    "to_builtins",
    "to_request",
    "tool_call",
    "tool_result",
    "translate_stream",
    "user",
    "validate",
    "validate_untrusted",
    "write_jsonl",
]
