from __future__ import annotations

import pickle

import msgspec
import pytest

import chatcodec as cc
from chatcodec._errors import from_msgspec


class TestTree:
    """Every public error derives from the base error and the matching builtin."""

    @pytest.mark.parametrize(
        ("error", "builtins"),
        [
            (cc.ValidationError, (ValueError,)),
            (cc.OrderingError, (cc.ValidationError, ValueError)),
            (cc.UntrustedInputError, (cc.ValidationError, ValueError)),
            (cc.ArgumentTypeError, (cc.ValidationError, ValueError)),
            (cc.MissingArgumentError, (KeyError,)),
            (cc.DecodeError, (ValueError,)),
            (cc.EncodeError, (TypeError,)),
        ],
    )
    def test_bases(self, error: type[Exception], builtins: tuple[type[Exception], ...]) -> None:
        assert issubclass(error, cc.ChatCodecError)
        for base in builtins:
            assert issubclass(error, base)

    def test_every_public_error_is_in_the_tree(self) -> None:
        errors = [getattr(cc, n) for n in cc.__all__ if n.endswith("Error")]
        assert all(issubclass(e, cc.ChatCodecError) for e in errors)
        doc = cc._errors.__doc__ or ""
        assert all(e.__name__ in doc for e in errors)

    def test_attributes_and_pickling(self) -> None:
        error = cc.ValidationError("must not be empty", "$[0].content")
        assert (error.rule, error.path) == ("must not be empty", "$[0].content")
        assert str(error) == "must not be empty - at `$[0].content`"
        ordering = cc.OrderingError("rule", 4)
        assert (ordering.index, ordering.path) == (4, "$[4]")
        for original in (error, ordering, cc.MissingArgumentError("k")):
            clone = pickle.loads(pickle.dumps(original))
            assert type(clone) is type(original)
            assert str(clone) == str(original)


def msgspec_error(data: bytes, type_: object) -> Exception:
    try:
        msgspec.json.decode(data, type=type_)
    except (msgspec.DecodeError, UnicodeDecodeError) as exc:
        return exc
    raise AssertionError("no error")


class Tagged(msgspec.Struct, tag=True, forbid_unknown_fields=True):
    x: int = 0


class TestFromMsgspec:
    """msgspec's messages are rewritten into path and rule, without input values."""

    def test_values_are_never_echoed(self) -> None:
        cases = [
            (b'{"type":"Nope"}', Tagged, "Invalid value"),
            (b'{"type":"Tagged","zz":1}', Tagged, "Object contains unknown field"),
        ]
        for data, type_, rule in cases:
            error = from_msgspec(msgspec_error(data, type_))
            assert isinstance(error, cc.ValidationError)
            assert error.rule == rule

    def test_prefix_and_nested_paths(self) -> None:
        error = from_msgspec(msgspec_error(b'[1, "x"]', list[int]), "$.messages")
        assert isinstance(error, cc.ValidationError)
        assert error.path == "$.messages[1]"

    def test_decode_errors(self) -> None:
        error = from_msgspec(msgspec_error(b"[1,", list[int]))
        assert isinstance(error, cc.DecodeError)
        assert str(error) == "Input data was truncated - at `$`"
        error = from_msgspec(msgspec_error(b'"\xff"', str))
        assert str(error) == "invalid UTF-8 (or an unpaired surrogate) in a string - at `$`"
        assert isinstance(from_msgspec(RuntimeError("x")), cc.DecodeError)


class TestProviderAndStreamErrors:
    """Errors that carry what a provider or a stream said."""

    def test_provider_error_keeps_its_message_out_of_str(self) -> None:
        error = cc.ProviderError(
            "openai", type="invalid_request_error", code=400, message="secret text", body={}
        )
        assert str(error) == "openai answered with an error: invalid_request_error 400"
        assert error.message == "secret text"
        assert isinstance(error, RuntimeError)
        clone = pickle.loads(pickle.dumps(error))
        assert (clone.provider, clone.type, clone.code, clone.message) == (
            "openai",
            "invalid_request_error",
            400,
            "secret text",
        )

    def test_provider_error_with_an_http_status(self) -> None:
        error = cc.ProviderError(
            "anthropic", type="rate_limit_error", message="secret text", status=429, retry_after=2.5
        )
        assert str(error) == "anthropic answered with an error: HTTP 429 rate_limit_error"
        assert "secret" not in repr(error)
        clone = pickle.loads(pickle.dumps(error))
        assert (clone.status, clone.retry_after, clone.message) == (429, 2.5, "secret text")
        assert str(cc.ProviderError("gemini", status=503)) == (
            "gemini answered with an error: HTTP 503"
        )
        assert cc.ProviderError("gemini").status is None

    def test_stream_error_carries_the_partial_result(self) -> None:
        partial = cc.Response(id="r1")
        error = cc.StreamError("the stream sent an error event", partial=partial)
        assert error.partial is partial
        assert pickle.loads(pickle.dumps(error)).partial == partial

    def test_loss_error_names_the_first_loss(self) -> None:
        losses = (cc.Loss("$.a", "x cannot carry it"), cc.Loss("$.b", "nor this"))
        error = cc.LossError(losses)
        assert str(error) == (
            "the conversion would lose data: x cannot carry it - at `$.a` (and 1 more)"
        )
        assert isinstance(error, ValueError)
        assert pickle.loads(pickle.dumps(error)).losses == losses


class TestNotFound:
    def test_an_unknown_codec_name_is_a_not_found_error(self) -> None:
        from chatcodec import providers

        with pytest.raises(cc.NotFoundError) as caught:
            providers.get("no-such-family")
        assert isinstance(caught.value, KeyError)
        assert str(caught.value).startswith("no codec named 'no-such-family'; known: openai")
        assert "bedrock" in caught.value.known

    def test_an_unknown_call_id_in_with_approval_is_a_not_found_error(self) -> None:
        message = cc.assistant(tool_calls=[cc.tool_call("c1", "f", {})])
        with pytest.raises(cc.NotFoundError) as caught:
            message.with_approval("c2", None)
        assert str(caught.value) == "no tool call has the id 'c2'"

    def test_it_pickles_with_its_fields(self) -> None:
        error = cc.NotFoundError("x", "codec", ("openai",))
        back = pickle.loads(pickle.dumps(error))
        assert (back.id, back.what, back.known) == ("x", "codec", ("openai",))
        assert str(back) == str(error)
