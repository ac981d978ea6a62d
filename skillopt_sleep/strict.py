"""The base of every pydantic model at a trust boundary: unknown fields are an error."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class Strict(BaseModel):
    """A model that refuses fields it does not know (``extra="forbid"``)."""

    model_config = ConfigDict(extra="forbid")
