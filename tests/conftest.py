"""Shared fixtures: the packaged card data, and the engines' batch API."""

import os

import pytest

os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")


@pytest.fixture(scope="session")
def cards():
    from sim.paws.cards import load_cards
    return load_cards()
