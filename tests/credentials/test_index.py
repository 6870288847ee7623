import json
from pathlib import Path

import pytest

from vap_console.credentials import CredentialsInputError, LocalIndex


def test_ids_survive_a_new_process_and_keep_their_order(xdg_dirs: dict[str, Path]) -> None:
    index = LocalIndex("work")
    assert index.add("rentals", "9f1c6c1e-2b7a-4a53-9a57-0e8b1f0f7a11")
    assert index.add("rentals", "0b6f0d7e-5a0e-4c0e-b0f6-3c7a1f3d9b22")
    assert not index.add("rentals", "9f1c6c1e-2b7a-4a53-9a57-0e8b1f0f7a11")
    index.add("agents", "ua_support_bot")

    again = LocalIndex("work")
    assert again.ids("rentals") == [
        "9f1c6c1e-2b7a-4a53-9a57-0e8b1f0f7a11",
        "0b6f0d7e-5a0e-4c0e-b0f6-3c7a1f3d9b22",
    ]
    assert again.ids("agents") == ["ua_support_bot"]
    assert again.ids("tools") == []
    assert again.path == xdg_dirs["data"] / "vap-console" / "index" / "work.json"


def test_profiles_do_not_share_ids(tmp_path: Path) -> None:
    LocalIndex("a", data_dir=tmp_path).add("tools", "tool_1")
    assert LocalIndex("b", data_dir=tmp_path).ids("tools") == []


def test_remove_forgets_one_id(tmp_path: Path) -> None:
    index = LocalIndex("p", data_dir=tmp_path)
    index.add("tools", "t1")
    index.add("tools", "t2")
    assert index.remove("tools", "t1")
    assert not index.remove("tools", "t1")
    assert index.ids("tools") == ["t2"]


@pytest.mark.parametrize(
    "bad", ["", "has space", "someone@example.com", "+919876543210", "x" * 129, "../etc"]
)
def test_only_ids_are_accepted(tmp_path: Path, bad: str) -> None:
    index = LocalIndex("p", data_dir=tmp_path)
    with pytest.raises(CredentialsInputError, match="id"):
        index.add("rentals", bad)
    assert not index.path.exists()


def test_unknown_kind_is_refused_by_name(tmp_path: Path) -> None:
    with pytest.raises(CredentialsInputError, match="rentals, tools, agents"):
        LocalIndex("p", data_dir=tmp_path).add("numbers", "n1")


@pytest.mark.parametrize("bad", ["../escape", "", "a/b", ".hidden"])
def test_profile_name_cannot_escape_the_index_dir(tmp_path: Path, bad: str) -> None:
    with pytest.raises(CredentialsInputError, match="profile name"):
        LocalIndex(bad, data_dir=tmp_path)


def test_a_damaged_file_is_set_aside_not_fatal(tmp_path: Path) -> None:
    index = LocalIndex("p", data_dir=tmp_path)
    index.path.parent.mkdir(parents=True)
    index.path.write_text("{not json")
    assert index.ids("agents") == []
    assert index.path.with_suffix(".json.corrupt").read_text() == "{not json"
    index.add("agents", "ua_x")
    assert json.loads(index.path.read_text())["agents"] == ["ua_x"]


def test_writes_leave_no_temporary_files(tmp_path: Path) -> None:
    index = LocalIndex("p", data_dir=tmp_path)
    for i in range(5):
        index.add("tools", f"t{i}")
    assert sorted(p.name for p in index.path.parent.iterdir()) == ["p.json", "p.lock"]


def test_concurrent_writers_lose_no_id(tmp_path: Path) -> None:
    import threading

    def writer(n: int) -> None:
        idx = LocalIndex("p", data_dir=tmp_path)
        for i in range(20):
            idx.add("rentals", f"r{n}-{i}")

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(LocalIndex("p", data_dir=tmp_path).ids("rentals")) == 80


def test_singular_kind_names_the_same_list(tmp_path: Path) -> None:
    index = LocalIndex("p", data_dir=tmp_path)
    index.add("rental", "r1")
    index.add("rentals", "r2")
    assert index.ids("rental") == index.ids("rentals") == ["r1", "r2"]
    assert index.remove("rental", "r2")
    assert json.loads(index.path.read_text())["rentals"] == ["r1"]
