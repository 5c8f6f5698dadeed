from __future__ import annotations

import base64

import pytest

import chatcodec as cc


class TestParts:
    """Each part checks it has exactly one source."""

    def test_image(self) -> None:
        assert cc.ImagePart(url="https://x").url == "https://x"
        assert cc.ImagePart(data="AAAA", media_type="image/png").data == "AAAA"
        with pytest.raises(cc.ValidationError, match="exactly one of url and data"):
            cc.ImagePart()
        with pytest.raises(cc.ValidationError, match="exactly one of url and data"):
            cc.ImagePart(url="u", data="AAAA", media_type="image/png")
        with pytest.raises(cc.ValidationError) as info:
            cc.ImagePart(data="AAAA")
        assert info.value.path == "$.media_type"

    def test_image_detail_is_checked_on_decode(self) -> None:
        with pytest.raises(
            cc.ValidationError, match=r"Invalid enum value - at `\$.content\[0\].detail`"
        ):
            cc.decode(b'{"role":"user","content":[{"type":"image","url":"u","detail":"max"}]}')

    def test_audio(self) -> None:
        assert cc.AudioPart(url="u").url == "u"
        with pytest.raises(cc.ValidationError):
            cc.AudioPart()
        with pytest.raises(cc.ValidationError, match="must be set when data is set"):
            cc.AudioPart(data="AAAA")

    def test_file(self) -> None:
        assert cc.FilePart(file_id="file-1").file_id == "file-1"
        assert cc.FilePart(data="AAAA", filename="a.pdf").filename == "a.pdf"
        with pytest.raises(cc.ValidationError, match="exactly one of url, data and file_id"):
            cc.FilePart()
        with pytest.raises(cc.ValidationError):
            cc.FilePart(url="u", file_id="f")

    def test_from_bytes(self) -> None:
        image = cc.ImagePart.from_bytes(b"\x89PNG", "image/png", detail="high")
        assert base64.b64decode(image.data or "") == b"\x89PNG"
        assert (image.media_type, image.detail) == ("image/png", "high")
        audio = cc.AudioPart.from_bytes(b"RIFF", "audio/wav")
        assert base64.b64decode(audio.data or "") == b"RIFF"

    def test_unknown_type_is_kept_verbatim(self) -> None:
        data = b'{"role":"user","content":[{"type":"video", "url":"u"}]}'
        message = cc.decode(data)
        assert isinstance(message, cc.UserMessage)
        part = message.content[0]
        assert isinstance(part, cc.UnknownPart)
        assert part.tag == "video"
        assert cc.encode(message) == data  # byte for byte, spacing and all

    def test_a_tag_that_is_not_a_string_is_refused(self) -> None:
        with pytest.raises(cc.ValidationError) as info:
            cc.decode(b'{"role":"user","content":[{"type":7,"url":"u"}]}')
        assert (info.value.rule, info.value.path) == ("Expected `str`", "$.content[0].type")
