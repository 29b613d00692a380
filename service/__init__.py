"""``playtest serve``: a design team's front door (docs/service.md). A FastAPI app over the layers below it: jobs are
sweep specs validated by ``cluster.spec``, played by the ``playtest sweep`` command in a child process of their own,
reported by ``queries.report`` and ``measures.answers`` as ``playtest report`` does; a SQLite catalog keeps users,
jobs and an audit log. The service sits beside ``cli`` (tests/test_layers.py); nothing below imports it."""
