"""Validating a large body without holding the GIL for all of it: validate_in_pieces.

pydantic-core holds the GIL for the whole of a model_validate_json call: moved to a worker thread
as it is, a 10 MB page still stops the event loop's thread for the whole parse (measured: the
loop's worst gap equals the parse time, 0.25-0.37 s, in a thread or not). Cut into calls of a
few hundred KiB each, the interpreter can hand the GIL to the loop between them (every 5 ms,
sys.getswitchinterval()). VapClient._parse calls it in a worker thread for bodies over
``parse_in_thread_bytes``.
"""

from __future__ import annotations

import functools
import json as _json
import re
from collections.abc import Mapping
from typing import Any, TypeVar, get_origin

from pydantic import BaseModel, TypeAdapter

M = TypeVar("M", bound=BaseModel)

PIECE_CHARS = 256 * 1024
_WHITESPACE = re.compile(r"[ \t\n\r]*")


def _skip_space(text: str, i: int) -> int:
    """The first index at or after ``i`` that is not JSON whitespace."""
    found = _WHITESPACE.match(text, i)
    assert found is not None  # a pattern that can match nothing matches at every index
    return found.end()


def _not_json_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


# Finds where each value ends (the objects it builds are thrown away); strict about control
# characters, and NaN/Infinity refused, as pydantic-core's parser is.
_SCANNER = _json.JSONDecoder(parse_constant=_not_json_constant)


class _NotPlain(ValueError):
    """The body is not the plain shape the piecewise path handles: validate it whole."""


@functools.lru_cache(maxsize=128)
def _list_fields(model: type[BaseModel]) -> dict[str, tuple[str, TypeAdapter[Any]]]:
    """The model's top-level list fields by wire name: (attribute, adapter for the list)."""
    found: dict[str, tuple[str, TypeAdapter[Any]]] = {}
    for name, field in model.model_fields.items():
        annotation = field.annotation
        if annotation is not None and get_origin(annotation) is list:
            found[field.alias or name] = (name, TypeAdapter(annotation))
    return found


def validate_in_pieces(model: type[M], data: bytes | bytearray) -> M:
    """``model.model_validate_json(data)``, the same result or the same ValidationError, in calls
    that each hold the GIL briefly: every top-level array of a list field (a page's ``items``) is
    validated a few hundred KiB of items at a time, the rest as a skeleton with those arrays empty.
    Anything unusual (not UTF-8, a duplicate key, an error anywhere) is validated whole instead,
    so the outcome and the error message are exactly model_validate_json's. Call it in a thread.
    """
    lists = _list_fields(model)
    if lists:
        try:
            return _pieces(model, lists, bytes(data).decode("utf-8"))
        except (ValueError, RecursionError):  # ValidationError is a ValueError too
            pass
    return model.model_validate_json(data)


def _pieces(model: type[M], lists: dict[str, tuple[str, TypeAdapter[Any]]], text: str) -> M:
    arrays = _top_level_arrays(text, lists)
    values: dict[str, list[Any]] = {}
    for key, (_, _, items) in arrays.items():
        adapter = lists[key][1]
        validated: list[Any] = []
        batch: list[str] = []
        size = 0
        for start, end in items:
            batch.append(text[start:end])
            size += end - start
            if size >= PIECE_CHARS:
                validated.extend(adapter.validate_json("[" + ",".join(batch) + "]"))
                batch, size = [], 0
        if batch:
            validated.extend(adapter.validate_json("[" + ",".join(batch) + "]"))
        values[key] = validated
    skeleton = text
    for start, end, _ in sorted(arrays.values(), reverse=True):
        skeleton = skeleton[:start] + "[]" + skeleton[end:]
    result = model.model_validate_json(skeleton)
    for key, value in values.items():
        setattr(result, lists[key][0], value)
    return result


def _top_level_arrays(
    text: str, wanted: Mapping[str, object]
) -> dict[str, tuple[int, int, list[tuple[int, int]]]]:
    """For each wanted key whose value is an array: (start, end, [(item start, item end)...])."""
    found: dict[str, tuple[int, int, list[tuple[int, int]]]] = {}
    seen: set[str] = set()
    i = _skip_space(text, 0)
    if text[i:i + 1] != "{":
        raise _NotPlain("not an object")
    i = _skip_space(text, i + 1)
    if text[i:i + 1] != "}":
        while True:
            key, i = _SCANNER.raw_decode(text, i)
            if not isinstance(key, str) or key in seen:
                raise _NotPlain("a key that is not a string, or twice")
            seen.add(key)
            i = _skip_space(text, i)
            if text[i:i + 1] != ":":
                raise _NotPlain("no colon")
            i = _skip_space(text, i + 1)
            if key in wanted and text[i:i + 1] == "[":
                start = i
                items, i = _array_items(text, i)
                found[key] = (start, i, items)
            else:
                _, i = _SCANNER.raw_decode(text, i)
            i = _skip_space(text, i)
            if text[i:i + 1] == ",":
                i = _skip_space(text, i + 1)
                continue
            if text[i:i + 1] == "}":
                break
            raise _NotPlain("no comma or closing brace")
    if _skip_space(text, i + 1) != len(text):
        raise _NotPlain("something after the object")
    return found


def _array_items(text: str, i: int) -> tuple[list[tuple[int, int]], int]:
    """The spans of the items of the array opening at ``i``, and the index after it."""
    items: list[tuple[int, int]] = []
    i = _skip_space(text, i + 1)
    if text[i:i + 1] == "]":
        return items, i + 1
    while True:
        _, end = _SCANNER.raw_decode(text, i)
        items.append((i, end))
        i = _skip_space(text, end)
        if text[i:i + 1] == ",":
            i = _skip_space(text, i + 1)
        elif text[i:i + 1] == "]":
            return items, i + 1
        else:
            raise _NotPlain("no comma or closing bracket")
