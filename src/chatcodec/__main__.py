"""``python -m chatcodec``."""

import sys

from .cli import main

sys.exit(main())
