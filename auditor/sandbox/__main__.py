"""``python -m auditor.sandbox JOB``: the child process that serves one job (see :mod:`.pool`)."""

import sys

from auditor.sandbox.pool import main

sys.exit(main())
