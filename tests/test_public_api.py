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
