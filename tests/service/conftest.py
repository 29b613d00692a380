"""The service tests' fixtures (their helpers are in service_helpers.py)."""

from service_helpers import quiet_app  # noqa: F401 - a fixture
