from __future__ import annotations

import inspect

import chatcodec as cc


class TestPublicApi:
    """One sorted __all__ that names everything public, each documented."""

    def test_all_is_sorted_and_complete(self) -> None:
        assert cc.__all__ == sorted(cc.__all__)
        public = {
            name
            for name, value in vars(cc).items()
            if not name.startswith("_") and not inspect.ismodule(value)
        }
        public.add("providers")  # the one public subpackage
        assert public == set(cc.__all__)

    def test_everything_public_has_a_docstring(self) -> None:
        for name in cc.__all__:
            value = getattr(cc, name)
            if inspect.isclass(value) or inspect.isfunction(value):
                assert inspect.getdoc(value), name
            if inspect.isclass(value):
                for attr, member in vars(value).items():
                    if not attr.startswith("_") and (
                        inspect.isfunction(member) or isinstance(member, classmethod | property)
                    ):
                        assert inspect.getdoc(member), f"{name}.{attr}"


class TestNoImportCycles:
    """The package's modules import one another without going round (lazy imports count)."""

    def test_no_cycle(self) -> None:
        import ast
        from pathlib import Path

        import chatcodec

        root = Path(chatcodec.__file__).parent
        graph: dict[str, set[str]] = {}
        for path in root.glob("*.py"):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            graph[path.stem] = {
                node.module.split(".")[0]
                for node in ast.walk(tree)
                if isinstance(node, ast.ImportFrom) and node.level == 1 and node.module
            }
        state: dict[str, str] = {}

        def visit(module: str, trail: list[str]) -> None:
            state[module] = "open"
            for dep in sorted(graph.get(module, ())):
                assert state.get(dep) != "open", " -> ".join([*trail, dep])
                if dep not in state:
                    visit(dep, [*trail, dep])
            state[module] = "done"

        for module in sorted(graph):
            if module not in state:
                visit(module, [module])
