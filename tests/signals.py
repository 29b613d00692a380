"""Shared by the tests that send a child process Ctrl-C: start it with SIGINT at its default disposition.

A test command run as a background job of a non-interactive shell (as CI wrappers and scripts start it) inherits
SIGINT as ignored, and so would every child it starts: the sweep would respect that and never see the signal.
The product is right to respect an ignored SIGINT; a test must not depend on how it was started, so each child
gets ``preexec_fn=default_sigint`` (``.ci/run`` runs the Ctrl-C tests once as a background job to prove it)."""

import signal


def default_sigint() -> None:
    """In the child, before it runs: SIGINT raises KeyboardInterrupt again (the default), whatever the parent had."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
