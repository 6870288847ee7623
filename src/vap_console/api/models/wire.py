"""The base of every wire model, and the shapes all resources share: a page, an error body.

Python attributes are snake_case; the wire names (camelCase, and snake_case where the spec writes
it so, as inside endUser and ttsConfig) are aliases. Parsing takes the wire form; dumping with
``model_dump(mode="json", by_alias=True)`` gives the wire form back: fields the body did not carry
are left out rather than invented as null, and unknown fields are kept as they came.
"""

from __future__ import annotations

from typing import Any, Generic, TypeVar

from pydantic import (
    BaseModel,
    ConfigDict,
    SerializationInfo,
    SerializerFunctionWrapHandler,
    model_serializer,
)
from pydantic.alias_generators import to_camel

T = TypeVar("T")


class _Wire(BaseModel):
    """Base of every wire model: extra fields kept, unset fields not dumped."""

    model_config = ConfigDict(
        alias_generator=to_camel,
        populate_by_name=True,
        extra="allow",
        serialize_by_alias=True,
        # Build each model's validator on first use, not at import: start-up then pays only for
        # the few models its first screen parses (the import was ~100-200 ms of schema building).
        defer_build=True,
    )

    @model_serializer(mode="wrap")
    def _omit_unset(self, handler: SerializerFunctionWrapHandler, info: SerializationInfo) -> Any:
        data = handler(self)
        if not isinstance(data, dict):
            return data
        for name, field in type(self).model_fields.items():
            if name in self.model_fields_set:
                continue
            data.pop(name, None)
            if field.alias:
                data.pop(field.alias, None)
        return data


class _SnakeWire(_Wire):
    """For objects the spec writes in snake_case on the wire (endUser, ttsConfig)."""

    model_config = ConfigDict(alias_generator=None)


# --- 2.9 errors, pages ---


class ErrorDetail(_Wire):
    loc: str
    message: str


class ErrorBody(_Wire):
    error: str
    code: str
    details: list[ErrorDetail] | None = None
    limit: int | None = None
    current: int | None = None


class Page(_Wire, Generic[T]):
    items: list[T]
    count: int
