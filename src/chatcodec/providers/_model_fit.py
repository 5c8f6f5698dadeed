"""A request made to fit the model it is converted for, by the model's profile.

:mod:`._profiles` says what a model refuses; the preflights name it. A
conversion into another family, or for another model, can do more for the
two things a request carries that the target model would refuse outright and
that leave the rest of the request meaning the same:

* a reasoning setting the family sends, for a model that does not think:
  left out;
* an image part, for a model that takes no images: left out (a message of
  images only is left as it is: a message needs content, and none is made
  up; the preflight names each image).

Each is reported as a loss at its canonical path. A name the table does not
know is left alone (nothing is assumed of it), and a request with neither a
reasoning setting nor an image looks nothing up.

A part left out shifts the parts after it in its message. The encoder and the
preflight see the fitted request, so their paths are the fitted ones:
:func:`restore_paths` gives them back the indices of the request as it came
(``moved`` says, per message, where each part left came from).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import msgspec

from .._content import ImagePart
from .._exchange import Request
from .._loss import Loss
from .._problems import Problem
from ._profiles import has_images, images_refused, profile, sends_reasoning

__all__ = [
    "IMAGE_LEFT_OUT",
    "REASONING_LEFT_OUT",
    "fit_model",
    "reasoning_left_out",
    "restore_paths",
]

REASONING_LEFT_OUT = "the target model does not think: its reasoning setting is left out"
IMAGE_LEFT_OUT = "the target model takes no images: the image is left out"

Moved = Mapping[int, tuple[int, ...]]


def fit_model(request: Request, family: str, losses: list[Loss]) -> tuple[Request, Moved | None]:
    """``request`` without what its model refuses (see the module), and where parts moved.

    Returns the request (``request`` itself when nothing changed) and, when
    parts were left out, each changed message's index mapped to the original
    index of each part it keeps (else ``None``).
    """
    fields: dict[str, Any] = {}
    if reasoning_left_out(family, request.model, request.reasoning):
        losses.append(Loss("$.reasoning", REASONING_LEFT_OUT))
        fields["reasoning"] = None
    moved: dict[int, tuple[int, ...]] | None = None
    messages: list[Any] | None = None
    if has_images(family, request.messages) and images_refused(family, request.model):
        messages = list(request.messages)
        moved = {}
        for i, message in enumerate(request.messages):
            content = getattr(message, "content", None)  # (an unknown record has none)
            if type(content) is not tuple:
                continue
            kept = [j for j, part in enumerate(content) if type(part) is not ImagePart]
            if len(kept) == len(content) or not kept:
                # A message of images only is left as it is (a message needs
                # content, and none may be made up): the preflight names each.
                continue
            losses.extend(
                Loss(f"$.messages[{i}].content[{j}]", IMAGE_LEFT_OUT)
                for j, part in enumerate(content)
                if type(part) is ImagePart
            )
            messages[i] = msgspec.structs.replace(message, content=tuple(content[j] for j in kept))
            moved[i] = tuple(kept)
        if not moved:
            messages = moved = None
    if messages is not None:
        fields["messages"] = tuple(messages)
    if not fields:
        return request, None
    return msgspec.structs.replace(request, **fields), moved


def reasoning_left_out(family: str, model: str | None, reasoning: Any) -> bool:
    """Whether ``family`` would send ``reasoning`` (or None) to a model that does not think."""
    if not sends_reasoning(family, reasoning):
        return False
    found = profile(family, model)
    return found is not None and found.reasoning is False


def _restore(path: str, moved: Moved) -> str:
    if not path.startswith("$.messages["):
        return path
    end = path.find("]", 11)
    if end < 0 or not path[11:end].isdecimal():
        return path
    kept = moved.get(int(path[11:end]))
    head = path[: end + 1] + ".content["
    if kept is None or not path.startswith(head):
        return path
    close = path.find("]", len(head))
    if close < 0 or not path[len(head) : close].isdecimal():
        return path
    k = int(path[len(head) : close])
    if k >= len(kept):
        return path
    return f"{head}{kept[k]}{path[close:]}"


def restore_paths(
    moved: Moved, losses: list[Loss], start: int, problems: list[Problem] | None = None
) -> None:
    """The paths of ``losses[start:]`` and ``problems`` given back their original part indices."""
    for n in range(start, len(losses)):
        loss = losses[n]
        path = _restore(loss.path, moved)
        if path != loss.path:
            losses[n] = Loss(path, loss.reason)
    if problems is not None:
        for n, problem in enumerate(problems):
            path = _restore(problem.path, moved)
            if path != problem.path:
                problems[n] = msgspec.structs.replace(problem, path=path)
