"""Fixtures for the loopback model server tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from skillopt_sleep.testing import ModelServer


@pytest.fixture
def srv() -> Iterator[ModelServer]:
    """A running model server, stopped after the test."""
    with ModelServer() as server:
        yield server
