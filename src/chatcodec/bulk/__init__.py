"""Bulk conversion: files of JSON records, one per line, from one family to another.

:func:`convert_lines` is the pure function every engine calls. The engines
are thin drivers around it, each in its own module: the command line
(``chatcodec convert``, which reads and writes the files), the process pool
(``--jobs``) and Dask (:mod:`chatcodec.dask`, behind the ``dask`` extra).
"""

from ._core import convert_lines
from ._result import KINDS, BulkResult, Kind, LineProblem

__all__ = ["KINDS", "BulkResult", "Kind", "LineProblem", "convert_lines"]
