#!/usr/bin/env python3
"""The mutation operators `make mutate` adds to cosmic-ray's, and cosmic-ray run with them.

    .venv/bin/python scripts/mutate_operators.py <cosmic-ray arguments>   # what scripts/mutate runs
    .venv/bin/python scripts/mutate_operators.py operators                 # every operator, ours too

cosmic-ray changes operators, numbers and booleans; a slip in a voice module is as often a wrong
word: a dict key or JSON key name, an error code a script branches on, a piece of SQL, a call
left out, an assignment that never happens. Issue 32 found such lines no test pinned with another
tool. These operators make those slips (registered as cosmic-ray's provider ``vap``, so sessions,
filters and reports treat them as its own):

* ``vap/StringReplacer``: a string literal changed (``"role"`` → ``"XXroleXX"``, ``""`` → ``"XXXX"``).
  Docstrings and f-strings are left alone (a docstring is no behaviour; an f-string's text is its
  constant parts, mutated through the values it formats).
* ``vap/RemoveCall``: a statement that is only a call (``x.append(y)``, ``await s.send(m)``,
  ``conn.execute(...)``) made ``pass``.
* ``vap/ReplaceAssignedValue``: in a function, ``name = value`` made ``name = None`` (``= None``
  made ``= ""``): an assignment whose value does not matter.
* ``vap/ReplaceAugmentedAssignment``: ``a += b`` (any ``op=``) made ``a = b``.
* ``vap/ReturnNone``: ``return value`` made ``return None``.
"""

from __future__ import annotations

import re
import sys

import parso.python.tree as tree
from cosmic_ray.operators.operator import Example, Operator


def _is_docstring(node: tree.String) -> bool:
    """A string that is a whole statement: a docstring (or a bare string, which does nothing)."""
    parent = node.parent
    if parent is not None and parent.type == "strings":  # "a" "b": the pieces of one string
        parent = parent.parent
    return parent is not None and parent.type == "simple_stmt"


_QUOTE = re.compile(r"^([A-Za-z]*)('''|\"\"\"|'|\")(.*)\2$", re.DOTALL)


class StringReplacer(Operator):
    """A string literal (not a docstring, not an f-string) changed to another one."""

    def mutation_positions(self, node):  # noqa: ANN001, ANN201 - cosmic-ray's interface
        if isinstance(node, tree.String) and not _is_docstring(node) and _QUOTE.match(node.value):
            yield (node.start_pos, node.end_pos)

    def mutate(self, node, index):  # noqa: ANN001, ANN201
        prefix, quote, body = _QUOTE.match(node.value).groups()  # type: ignore[union-attr]
        return tree.String(f"{prefix}{quote}XX{body}XX{quote}", node.start_pos, prefix=node.prefix)

    @classmethod
    def examples(cls):  # noqa: ANN206
        return (
            Example('x = {"role": 1}', 'x = {"XXroleXX": 1}'),
            Example("x = ''", "x = 'XXXX'"),
            Example('def f():\n    """Doc."""\n    return "a"', 'def f():\n    """Doc."""\n    return "XXaXX"'),
        )


def _statement_of(node) -> bool:  # noqa: ANN001
    """Whether ``node`` is a whole statement on its own (its parent is the simple statement)."""
    parent = node.parent
    return parent is not None and parent.type == "simple_stmt"


def _is_call(node) -> bool:  # noqa: ANN001
    if node.type != "atom_expr":
        return False
    last = node.children[-1]
    return last.type == "trailer" and last.children[0].value == "("


class RemoveCall(Operator):
    """A statement that is only a call (awaited or not) made ``pass``."""

    def mutation_positions(self, node):  # noqa: ANN001, ANN201
        if _statement_of(node) and (_is_call(node) or (
                node.type == "atom_expr" and node.children[0].type == "keyword"
                and node.children[0].value == "await")):
            yield (node.start_pos, node.end_pos)

    def mutate(self, node, index):  # noqa: ANN001, ANN201
        return tree.Keyword("pass", node.start_pos, prefix=node.get_first_leaf().prefix)

    @classmethod
    def examples(cls):  # noqa: ANN206
        return (
            Example("def f(x):\n    x.append(1)\n", "def f(x):\n    pass\n"),
            Example("async def f(s):\n    await s.send(1)\n", "async def f(s):\n    pass\n"),
        )


def _inside_function(node) -> bool:  # noqa: ANN001
    parent = node.parent
    while parent is not None:
        if parent.type in ("funcdef", "async_funcdef"):
            return True
        if parent.type == "classdef":
            return False
        parent = parent.parent
    return False


class ReplaceAssignedValue(Operator):
    """In a function, ``target = value`` made ``target = None`` (``= None`` made ``= ""``)."""

    def mutation_positions(self, node):  # noqa: ANN001, ANN201
        if (node.type == "expr_stmt" and len(node.children) == 3 and node.children[1].type == "operator"
                and node.children[1].value == "=" and _inside_function(node)):
            yield (node.start_pos, node.end_pos)

    def mutate(self, node, index):  # noqa: ANN001, ANN201
        value = node.children[2]
        prefix = value.get_first_leaf().prefix
        replacement = (tree.String('""', value.start_pos, prefix=prefix)
                       if value.type == "keyword" and value.value == "None"
                       else tree.Keyword("None", value.start_pos, prefix=prefix))
        node.children[2] = replacement
        replacement.parent = node
        return node

    @classmethod
    def examples(cls):  # noqa: ANN206
        return (
            Example("def f():\n    a = b + 1\n", "def f():\n    a = None\n"),
            Example("def f():\n    a = None\n", 'def f():\n    a = ""\n'),
        )


class ReplaceAugmentedAssignment(Operator):
    """``a += b`` (any augmented assignment) made ``a = b``."""

    def mutation_positions(self, node):  # noqa: ANN001, ANN201
        if (node.type == "expr_stmt" and len(node.children) == 3 and node.children[1].type == "operator"
                and node.children[1].value.endswith("=") and node.children[1].value not in ("=", "==")):
            yield (node.children[1].start_pos, node.children[1].end_pos)

    def mutate(self, node, index):  # noqa: ANN001, ANN201
        old = node.children[1]
        new = tree.Operator("=", old.start_pos, prefix=old.prefix)
        new.parent = node
        node.children[1] = new
        return node

    @classmethod
    def examples(cls):  # noqa: ANN206
        return (Example("a += 1", "a = 1"), Example("a |= {1}", "a = {1}"))


class ReturnNone(Operator):
    """``return value`` made ``return None``."""

    def mutation_positions(self, node):  # noqa: ANN001, ANN201
        if node.type == "return_stmt" and len(node.children) == 2 and not (
                node.children[1].type == "keyword" and node.children[1].value == "None"):
            yield (node.start_pos, node.end_pos)

    def mutate(self, node, index):  # noqa: ANN001, ANN201
        value = node.children[1]
        new = tree.Keyword("None", value.start_pos, prefix=value.get_first_leaf().prefix)
        new.parent = node
        node.children[1] = new
        return node

    @classmethod
    def examples(cls):  # noqa: ANN206
        return (Example("def f():\n    return 1 + x\n", "def f():\n    return None\n"),)


OPERATORS = {op.__name__: op for op in (StringReplacer, RemoveCall, ReplaceAssignedValue,
                                         ReplaceAugmentedAssignment, ReturnNone)}


class Provider:
    """cosmic-ray's operator-provider interface: names, and the class of each."""

    def __iter__(self):  # noqa: ANN204
        return iter(OPERATORS)

    def __getitem__(self, name: str) -> type[Operator]:
        return OPERATORS[name]


def register() -> None:
    import cosmic_ray.plugins

    cosmic_ray.plugins.OPERATOR_PROVIDERS["vap"] = Provider()


def check_examples() -> None:
    """Each operator's examples hold (``python scripts/mutate_operators.py --check``)."""
    from cosmic_ray.mutating import mutate_code

    for name, op in OPERATORS.items():
        for example in op.examples():
            got = mutate_code(example.pre_mutation_code, op(), example.occurrence)
            if got != example.post_mutation_code:
                raise SystemExit(f"{name}: {example.pre_mutation_code!r} made {got!r}, "
                                 f"not {example.post_mutation_code!r}")
    print(f"{len(OPERATORS)} operators: every example holds")


if __name__ == "__main__":
    register()
    if sys.argv[1:] == ["--check"]:
        check_examples()
        sys.exit(0)
    from cosmic_ray.cli import main

    sys.exit(main())
