"""A list on an 80-column terminal fits it, as the console's lists do: the least important columns
go first, then the widest are cut with …, and the key column (what the next command takes) is
never dropped nor cut; stderr says what was left out. Piped, every row is whole."""

from __future__ import annotations

import pytest
from rich.cells import cell_len

from tests.scripting.conftest import Result, Vap
from vap_console.scripting.root import run


def on_terminal(vap: Vap, *args: str, columns: int) -> Result:
    session = vap.session(terminal=True)
    session.columns = columns
    vap.capsys.readouterr()
    code = run(list(args), session)
    captured = vap.capsys.readouterr()
    return Result(code, captured.out, captured.err)


KEYS = {  # each list, and the field of its --json items its key column shows
    ("numbers", "list"): "id",
    ("tools", "list"): "id",
    ("agents", "list"): "handle",
    ("variables", "list"): "name",
    ("templates", "list"): "slug",
}


@pytest.mark.parametrize("command", sorted(KEYS), ids=" ".join)
@pytest.mark.parametrize("columns", [80, 60])
def test_a_list_fits_the_terminal_with_its_key_column_whole(vap: Vap, command: tuple[str, str], columns: int) -> None:
    keys = [item[KEYS[command]] for item in vap(*command, "--json").json()]
    shown = on_terminal(vap, *command, columns=columns)
    assert shown.code == 0, shown.err
    lines = shown.out.splitlines()
    assert max(cell_len(line) for line in lines) <= columns, shown.out
    for key in keys:  # whole, on one line, never cut: what `show` takes
        assert any(line.split()[:1] == [key] or f" {key}" in f" {line} " for line in lines), (key, shown.out)


def test_the_numbers_list_gives_way_as_the_console_does(vap: Vap) -> None:
    wide = on_terminal(vap, "numbers", "list", columns=200)
    assert wide.out.split("\n", 1)[0].split() == ["ID", "STATUS", "NUMBER", "TYPE", "CITY", "MONTHLY", "RENEWS"]
    assert wide.err == ""
    narrow = on_terminal(vap, "numbers", "list", columns=80)
    assert narrow.out.split("\n", 1)[0].split() == ["ID", "STATUS", "NUMBER", "CITY"]
    assert narrow.err == ("(left out to fit 80 columns: TYPE, MONTHLY, RENEWS; piped or with --json every "
                          "column is printed)\n")
    assert "Pune" in narrow.out  # the city whole, not broken across lines


def test_piped_every_row_is_whole(vap: Vap) -> None:
    piped = vap("numbers", "list")
    rows = [line.split("\t") for line in piped.out.splitlines()]
    assert rows and all(len(row) == 7 for row in rows)
    assert [row[0] for row in rows] == [item["id"] for item in vap("numbers", "list", "--json").json()]


def test_a_column_too_long_for_the_terminal_is_cut_with_an_ellipsis(vap: Vap) -> None:
    shown = on_terminal(vap, "templates", "list", columns=80)
    lines = shown.out.splitlines()
    assert max(cell_len(line) for line in lines) <= 80
    assert any(line.endswith("…") for line in lines[1:]), shown.out
