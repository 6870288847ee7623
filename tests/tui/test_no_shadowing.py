"""No widget, screen or app of the console hides a member of Textual's under another kind.

``RowTable.query`` was a string property hiding Textual's ``query()``, which a double click calls:
the console stopped. ``ListState.loading()`` hid ``Widget.loading``, so the Retry button under it
took no clicks. An override of a method by a method, of a reactive by a reactive, of a class
setting by a class setting is fine; a member of another kind under a Textual name is not.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
import textwrap
from pathlib import Path

import textual.dom
from textual.reactive import Reactive

import vap_console

TEXTUAL_BASE = textual.dom.DOMNode


def _kind(value: object) -> str:
    if isinstance(value, (staticmethod, classmethod)) or inspect.isfunction(value):
        return "method"
    if isinstance(value, (property, Reactive)) or (hasattr(type(value), "__get__") and not callable(value)):
        return "property"
    if inspect.isclass(value):
        return "class"
    return "setting"


def _textual_owner(cls: type, name: str) -> type | None:
    for base in cls.__mro__[1:]:
        if base.__module__.startswith("textual.") and name in vars(base):
            return base
    return None


def console_classes() -> list[type]:
    root = Path(vap_console.__file__).parent
    for info in pkgutil.walk_packages([str(root)], "vap_console."):
        if not info.name.endswith("__main__"):  # running it would start the console
            importlib.import_module(info.name)
    found: list[type] = []
    pending: list[type] = [TEXTUAL_BASE]
    while pending:
        cls = pending.pop()
        pending.extend(cls.__subclasses__())
        if cls.__module__.startswith("vap_console.") and cls not in found:
            found.append(cls)
    return found


def _assigned_on_self(cls: type) -> set[str]:
    """``self.name = …`` in the class's own methods: instance attributes it sets."""
    tree = ast.parse(textwrap.dedent(inspect.getsource(cls)))
    names: set[str] = set()
    for node in ast.walk(tree):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(
            node, (ast.AnnAssign, ast.AugAssign)) else []
        for target in targets:
            if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == "self":
                names.add(target.attr)
    return names


def shadowed(cls: type) -> list[str]:
    problems = []
    for name, value in vars(cls).items():
        if name.startswith("__"):
            continue
        owner = _textual_owner(cls, name)
        if owner is None:
            continue
        mine, theirs = _kind(value), _kind(vars(owner)[name])
        if mine != theirs:
            problems.append(f"{cls.__qualname__}.{name} ({mine}) hides {owner.__qualname__}.{name} ({theirs})")
    for name in _assigned_on_self(cls):
        owner = _textual_owner(cls, name)
        # Assigning a reactive or a property sets it; assigning over a method hides it.
        if owner is not None and _kind(vars(owner)[name]) == "method":
            problems.append(f"{cls.__qualname__}: self.{name} = … hides the method {owner.__qualname__}.{name}")
    return problems


def test_no_console_class_hides_a_textual_member() -> None:
    classes = console_classes()
    assert len(classes) > 20  # every screen, dialog and widget was found
    problems = [problem for cls in classes for problem in shadowed(cls)]
    assert problems == []


def test_the_check_catches_the_two_members_that_crashed_the_console() -> None:
    from textual.widget import Widget
    from textual.widgets import Static

    class Table(Widget):
        @property
        def query(self) -> str:  # type: ignore[override]
            return ""

    class State(Static):
        def loading(self, what: str) -> None:  # type: ignore[override]
            pass

    assert shadowed(Table) == ["test_the_check_catches_the_two_members_that_crashed_the_console.<locals>."
                               "Table.query (property) hides DOMNode.query (method)"]
    assert "State.loading (method) hides Widget.loading (property)" in shadowed(State)[0]
