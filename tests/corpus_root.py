"""Where the tests find the recorded corpus, and the one switch that hides it.

The full recorded corpus lives in ``../shared/corpus`` beside the project when
it is there; a user's clone has none. ``CHATCODEC_CORPUS`` names another folder
instead; pointed at a folder with no corpus in it (an empty one), the tests run
exactly as they do in a clone without ``../shared``. ``.ci/run`` runs them both
ways.
"""

from __future__ import annotations

import os
from pathlib import Path

CORPUS = Path(
    os.environ.get("CHATCODEC_CORPUS") or Path(__file__).resolve().parents[2] / "shared" / "corpus"
)
HAVE_CORPUS = (CORPUS / "MANIFEST.tsv").is_file()
NO_CORPUS = f"the recorded corpus is not at {CORPUS}"
