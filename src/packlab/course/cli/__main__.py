"""`python -m packlab.course.cli`: the `packlab` command."""

from packlab.course.cli import main

raise SystemExit(main())
