"""The shared lease file: one holder per device, across processes, with a log that shows who held what when."""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

import attrs
from hypothesis import given, settings
from hypothesis import strategies as st

from fsm_runner.leases import HeldInterval, LeaseFile, LeaseRecord, held_intervals, overlapping


def test_a_held_serial_is_not_leased_again_until_released(tmp_path: Path) -> None:
    path = tmp_path / "leases.jsonl"
    first, second = LeaseFile(path, owner="worker-a"), LeaseFile(path, owner="worker-b")
    lease = first.try_acquire(["d1"])
    assert lease is not None and lease.serial == "d1"
    assert second.try_acquire(["d1"]) is None
    other = second.try_acquire(["d1", "d2"])
    assert other is not None and other.serial == "d2"
    first.release(lease)
    again = second.try_acquire(["d1"])
    assert again is not None and again.owner == "worker-b"


def test_releasing_twice_writes_one_release(tmp_path: Path) -> None:
    leases = LeaseFile(tmp_path / "leases.jsonl")
    lease = leases.try_acquire(["d1"])
    assert lease is not None
    leases.release(lease)
    leases.release(lease)
    assert [r.op for r in leases.records()] == ["acquire", "release"]


def test_a_lease_of_a_dead_local_process_is_taken_over(tmp_path: Path) -> None:
    path = tmp_path / "leases.jsonl"
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(f"""
            from fsm_runner.leases import LeaseFile
            assert LeaseFile({str(path)!r}, owner="crashed").try_acquire(["d1"]) is not None
        """)],
        check=True, capture_output=True, text=True, timeout=60,
    )
    assert done.returncode == 0
    leases = LeaseFile(path, owner="survivor")
    assert leases.records()[0].owner == "crashed"
    lease = leases.try_acquire(["d1"])
    assert lease is not None and lease.owner == "survivor"


def test_two_processes_racing_for_one_device_never_hold_it_together(tmp_path: Path) -> None:
    path = tmp_path / "leases.jsonl"
    script = textwrap.dedent(f"""
        import sys, time
        from fsm_runner.leases import LeaseFile
        leases = LeaseFile({str(path)!r}, owner=sys.argv[1])
        taken = 0
        while taken < 15:
            lease = leases.try_acquire(["only"])
            if lease is None:
                time.sleep(0.001)
                continue
            time.sleep(0.002)
            leases.release(lease)
            taken += 1
    """)
    racers = [subprocess.Popen([sys.executable, "-c", script, name]) for name in ("a", "b")]
    assert [p.wait(timeout=120) for p in racers] == [0, 0]
    intervals = held_intervals(LeaseFile(path).records())
    assert len(intervals) == 30
    assert {i.owner for i in intervals} == {"a", "b"}
    assert all(i.end is not None for i in intervals)
    assert overlapping(intervals) == []


def test_overlap_is_found_even_behind_a_short_lease() -> None:
    long = HeldInterval("d1", "a", "1", 0.0, 10.0)
    short = HeldInterval("d1", "b", "2", 1.0, 2.0)
    late = HeldInterval("d1", "c", "3", 5.0, 6.0)
    elsewhere = HeldInterval("d2", "c", "4", 5.0, 6.0)
    assert overlapping([late, short, long, elsewhere]) == [(long, short), (long, late)]


def test_an_unreleased_lease_is_open_in_the_intervals() -> None:
    records = [
        LeaseRecord("acquire", "d1", "a", "x", 1.0, "h", 1),
        LeaseRecord("release", "d1", "a", "x", 2.0, "h", 1),
        LeaseRecord("acquire", "d1", "b", "y", 3.0, "h", 2),
    ]
    assert held_intervals(records) == [
        HeldInterval("d1", "a", "x", 1.0, 2.0),
        HeldInterval("d1", "b", "y", 3.0, None),
    ]


@settings(max_examples=50, deadline=None)
@given(
    serial=st.text(min_size=1, max_size=30),
    owner=st.text(max_size=30),
    note=st.text(max_size=40),
    t=st.floats(min_value=0, max_value=4e9, allow_nan=False),
)
def test_a_lease_record_reads_back_as_written(serial: str, owner: str, note: str, t: float) -> None:
    record = LeaseRecord("acquire", serial, owner, "id", t, "host", 7, note)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "leases.jsonl"
        leases = LeaseFile(path)
        path.write_text(json.dumps(attrs.asdict(record)) + "\n")
        assert leases.records() == [record]


_spans = st.lists(
    st.tuples(st.sampled_from(["d1", "d2"]), st.integers(0, 50), st.integers(1, 20)), max_size=8
)


@settings(max_examples=200, deadline=None)
@given(_spans)
def test_overlap_is_reported_exactly_when_two_leases_share_a_moment(spans: list[tuple[str, int, int]]) -> None:
    intervals = [HeldInterval(serial, "o", str(n), float(start), float(start + length))
                 for n, (serial, start, length) in enumerate(spans)]
    shared = any(
        a.serial == b.serial and a.start < (b.end or 0) and b.start < (a.end or 0)
        for i, a in enumerate(intervals) for b in intervals[i + 1:]
    )
    assert bool(overlapping(intervals)) == shared
