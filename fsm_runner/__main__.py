"""``python -m fsm_runner`` is the ``fsm-runner`` command."""

import sys

from fsm_runner.cli import main

sys.exit(main())
