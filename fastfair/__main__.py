"""python -m fastfair: the command line (see fastfair.cli)."""

import sys

from fastfair.cli import main

sys.exit(main())
