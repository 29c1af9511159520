"""``python -m nx_agent``: the command line."""

import sys

from .cli import main

sys.exit(main())
