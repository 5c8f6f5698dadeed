"""The README's examples and the docstrings' examples run, and give what they say."""

from __future__ import annotations

import doctest
import importlib
import pkgutil
from pathlib import Path

import pytest

import chatcodec
import chatcodec as cc

README = Path(__file__).parent.parent / "README.md"
FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


class PublicNames(doctest.OutputChecker):
    """Errors are shown under the name users import, chatcodec.X."""

    def check_output(self, want: str, got: str, optionflags: int) -> bool:
        return super().check_output(
            want, got.replace("chatcodec._errors.", "chatcodec."), optionflags
        )


def run(test: doctest.DocTest) -> doctest.TestResults:
    runner = doctest.DocTestRunner(checker=PublicNames(), optionflags=FLAGS)
    runner.run(test)
    return runner.summarize(verbose=False)


def test_readme_examples() -> None:
    text = README.read_text()
    test = doctest.DocTestParser().get_doctest(text, {}, "README.md", str(README), 0)
    assert len(test.examples) > 20
    assert run(test).failed == 0


DOCS = sorted((README.parent / "docs").glob("*.md"))


@pytest.mark.parametrize("page", DOCS, ids=lambda page: page.name)
def test_docs_pages(page: Path) -> None:
    """Each page under docs/ is a doctest of its own, and the README links it."""
    test = doctest.DocTestParser().get_doctest(page.read_text(), {}, page.name, str(page), 0)
    assert run(test).failed == 0
    assert f"](docs/{page.name})" in README.read_text()


def test_readme_is_a_guide() -> None:
    """The reference pages live under docs/: the README stays a guide read top to bottom."""
    assert len(DOCS) >= 4
    assert len(README.read_text().splitlines()) < 1400


def modules() -> list[str]:
    return [
        info.name
        for info in pkgutil.walk_packages(chatcodec.__path__, "chatcodec.")
        if not info.name.endswith("__main__")
    ]


@pytest.mark.parametrize("name", modules())
def test_docstring_examples(name: str) -> None:
    module = importlib.import_module(name)
    for test in doctest.DocTestFinder().find(
        module, globs={**vars(module), "chatcodec": chatcodec, **vars(chatcodec)}
    ):
        assert run(test).failed == 0, test.name


def test_readme_first_screen() -> None:
    """What it is, the install line, the main command and the make commands, in 40 lines."""
    lines = README.read_text().splitlines()[:40]
    assert any(line.startswith("pip install 'chatcodec[cli]'") for line in lines)
    assert any(line.startswith("chatcodec convert --from") for line in lines)
    commands = [line.split("#")[0].strip() for line in lines if line.startswith("make ")]
    assert commands == ["make run", "make test", "make bench"]


def test_raising_functions_document_what_they_raise() -> None:
    """Every public function that raises says so in a ``Raises`` section."""
    import inspect

    for function in (
        cc.ToolDefinition.from_type,
        cc.Conversation.extend,
        cc.Conversation.by_role,
        cc.ToolCall.with_approval,
        cc.read_transcript,
    ):
        doc = inspect.getdoc(function) or ""
        assert "\nRaises\n------\n" in doc, function.__qualname__
    # The safer default is stated with its reason.
    assert "prompt injection" in (inspect.getdoc(cc.validate_untrusted) or "")
