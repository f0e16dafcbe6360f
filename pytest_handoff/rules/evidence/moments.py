"""When a handoff was written, and which state of the repository its claims are judged against.

A committed handoff whose file has no uncommitted change was written as of the last commit of
HEAD's history that changed it: its claims are judged against that commit (the file's text then),
and the working tree. A modified or untracked handoff is judged against the working tree.

A handoff's own time (its ``timestamp``, ``dt``...) bounds the commits that can support its claims.
A date alone covers its whole day in the author's time zone: the time zone of the commit that
wrote the handoff, else this machine's.
"""

from __future__ import annotations

import functools
from datetime import date, datetime, timedelta, timezone
from typing import TYPE_CHECKING, NamedTuple

from pytest_handoff.places.pointers import resolve
from pytest_handoff.read.times import parse_timestamp

if TYPE_CHECKING:
    from pytest_handoff.rules.evidence.gitlog import Commit
    from pytest_handoff.rules.evidence.repository import Repository
    from pytest_handoff.values.documents import Document

#: Minutes a commit may be dated after its handoff (clocks of two machines, a commit made while
#: the handoff was written) before it counts as later than the handoff.
CLOCK_SLACK = timedelta(minutes=10)


class State(NamedTuple):
    """The state of the repository a handoff's claims are judged against."""

    commit: Commit | None  # the commit that last changed the handoff; None: the working tree
    why: str = ""  # why the working tree (the handoff is not committed, or has changes)
    # The last commit of a handoff edited since: it was written by then, whatever its text says.
    written_by: Commit | None = None

    @property
    def last_commit(self) -> Commit | None:
        """The commit that last changed the handoff's file, whether or not it has changed since."""
        return self.commit or self.written_by

    @property
    def said(self) -> str:
        """How findings name it."""
        if self.commit is None:
            return f"judged in the working tree{f': {self.why}' if self.why else ''}"
        return f"judged at commit {self.commit.sha[:12]}, the handoff's last change"


class Span(NamedTuple):
    """A handoff's time: an instant (``start == end``) or a whole day."""

    start: datetime
    end: datetime
    day: bool = False  # a date alone: the day of whoever wrote it, wherever they were


#: How much wider a day's window is, for commits whose authors were elsewhere (UTC-12 to UTC+14).
DAY_SLACK = timedelta(hours=14)


def commit_day(commit: Commit) -> date:
    """The date a commit was made, where its author was."""
    return datetime.fromtimestamp(commit.time, _zone(commit.offset)).date()


WORKING_TREE = State(None)


def state_of(document: Document, repository: Repository | None) -> State:
    """The state ``document``'s claims are judged against (see the module's docs)."""
    if repository is None or repository.top is None:
        return WORKING_TREE
    name = repository.name_of(document.path)
    if name is None:
        return WORKING_TREE
    if name not in repository.indexed:
        return State(None, "the handoff is not committed")
    if name in repository.uncommitted:
        return State(None, "the handoff has uncommitted changes", repository.last_change(name))
    commit = repository.last_change(name)
    return State(commit) if commit is not None else WORKING_TREE


def span_of(document: Document, pointer: str, state: State) -> Span | None:
    """The time the document gives at ``pointer`` (a date alone: its day in the author's zone)."""
    if not pointer or not isinstance(document.data, dict):
        return None
    value = next(resolve(document.data, pointer), ("", None))[1]  # a key, or deeper (/front_matter/completed)
    moment = parse_timestamp(value)
    if moment is None or not isinstance(value, str):
        return None
    text = value.strip()
    zone = _author_zone(state)
    try:
        if len(text) == 10:  # a date alone
            start = datetime(moment.year, moment.month, moment.day, tzinfo=zone)
            return Span(start, start + timedelta(days=1, seconds=-1), day=True)
        if not _zoned(text):  # a local time without its zone: the author's
            moment = moment.replace(tzinfo=zone)
        moment.timestamp()  # a time at the edge of the calendar fails here, not later
    except (OverflowError, ValueError, OSError):
        return None
    return Span(moment, moment)


def _zoned(text: str) -> bool:
    tail = text[10:]
    return tail.endswith(("Z", "z")) or "+" in tail or "-" in tail


def _author_zone(state: State) -> timezone:
    if state.commit is not None:
        return _zone(state.commit.offset)
    return _zone(int((datetime.now().astimezone().utcoffset() or timedelta()).total_seconds()))


@functools.lru_cache(maxsize=64)
def _zone(offset: int) -> timezone:
    return timezone(timedelta(seconds=offset))


def seconds(moment: datetime | None, *, slack: bool = False) -> int | None:
    """``moment`` as seconds since the epoch (with :data:`CLOCK_SLACK` added when ``slack``)."""
    if moment is None:
        return None
    try:
        return int((moment + (CLOCK_SLACK if slack else timedelta())).timestamp())
    except (OverflowError, ValueError, OSError):
        return None  # a time at the edge of the calendar (9999-12-31): as good as unknown


#: How far into the next day work dated by a day alone still counts as of that day (EV202).
SMALL_HOURS = timedelta(hours=4)


def known_until(span: Span | None) -> int | None:
    """The last second a commit the handoff names may be dated (None when it gives no time): its
    time with slack; for a date alone, the end of the day and the small hours of the next (a
    session that runs past midnight keeps the date it began on)."""
    if span is None:
        return None
    return seconds(span.end + SMALL_HOURS) if span.day else seconds(span.end, slack=True)


def latest(span: Span | None, state: State) -> int | None:
    """The last second a commit the handoff knew of can be dated: its time (with slack), or the
    commit that wrote it, whichever is later (None when the handoff gives no time)."""
    bound = seconds(span.end, slack=True) if span else None
    last = state.last_commit
    if bound is None or last is None:
        return bound
    return max(bound, last.time)


def window(since: datetime | None, until: datetime | None) -> str:
    """How a message names the dates of a window ("between A and B ")."""
    if since and until:
        return f"between {since.isoformat()} and {until.isoformat()} "
    if until:
        return f"up to {until.isoformat()} "
    return ""
