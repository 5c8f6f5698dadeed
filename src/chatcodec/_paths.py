r"""JSON paths that pass through the input's own objects, and never show its data.

A path in an error, a loss or a problem (``$.messages[2].extras.openai.logprobs``)
is made of the canonical form's field names, indexes and, inside an object the
input wrote (a record's extras, a tool's JSON schema, a settings group, an
envelope), that object's keys. Those keys are data: one may hold a secret, or a
newline and a backtick that would end the message's ``- at `$...``` and begin a
forged line of a log. :func:`key_step` is the one way a path writes such a key:

- a name of the wire formats' vocabulary (a field name of one of the families'
  request, response or stream types, a JSON Schema keyword, a field of an
  OpenAI-compatible dialect: ``chatcodec._vocabulary.NAMES``) as itself:
  ``.logprobs``, ``.$defs``;
- any other key as the first eight hex digits of its BLAKE2b digest:
  ``[key 5d0c1f1e]``. The same key always gives the same step, so the key can be
  found in the input (:func:`chatcodec.key_step` writes a key's step), and no
  character of it reaches a message.

Names chatcodec itself puts in a path (field names, a family's name) are
written as they are.
"""

from __future__ import annotations

from hashlib import blake2b

from ._vocabulary import NAMES

__all__ = ["key_step"]


def key_step(key: object) -> str:
    r"""The step of a JSON path to the member ``key`` of an object the input wrote.

    Parameters
    ----------
    key : object
        The member's key: a string, or any value a msgpack map may have.

    Returns
    -------
    str
        ``.key`` for a name of the wire formats' vocabulary, else ``[key`` and
        eight hex digits of the key's digest ``]``.

    Examples
    --------
    >>> key_step("logprobs"), key_step("$defs")
    ('.logprobs', '.$defs')
    >>> key_step("api_key_of_acme"), key_step("a\n- at `$.b`")
    ('[key e4cced96]', '[key a9c12a27]')
    """
    if type(key) is str:
        if key in NAMES:
            return "." + key
        data = key.encode("utf-8", "surrogatepass")
    else:  # a msgpack map's key need not be a string
        data = repr(key).encode("utf-8", "surrogatepass")
    return f"[key {blake2b(data, digest_size=4).hexdigest()}]"
