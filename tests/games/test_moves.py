"""The move log (``games.moves``) over real rows: tables played through the services, every
kind of move read by the player who made it, another player and the public."""

from __future__ import annotations

import hashlib
import itertools
import json
from datetime import timedelta
from typing import Any

import pytest
from channels.layers import InMemoryChannelLayer
from django.utils import timezone

from accounts.models import User
from config import push as config_push
from games import clock_services, push, record
from games.engine.cards import format_card
from games.engine.legal import legal_actions
from games.models import Table, TableEvent
from games.moves import card_phrase, card_words, table_moves
from games.selectors import log_since, table_seats
from tests.config.payload_world import logged_table
from tests.games.tables import act, play_greedy, play_simple, players, started_table, state_of
from tests.tournaments.factories import staff

pytestmark = pytest.mark.django_db


@pytest.fixture
def fixed_seeds(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every hand's seed from a fixed sequence: the same games on every run."""
    counter = itertools.count()

    def seed() -> str:
        return hashlib.sha256(f"moves-{next(counter)}".encode()).hexdigest()[:32]

    monkeypatch.setattr(record, "new_seed", seed)


def moves(table: Table, reader: str | None) -> list[dict[str, Any]]:
    table.refresh_from_db()
    return list(log_since(table).moves(reader))


def last(table: Table, reader: str | None) -> dict[str, Any]:
    return moves(table, reader)[-1]


def time_out(table: Table) -> None:
    Table.objects.filter(pk=table.pk).update(deadline=timezone.now() - timedelta(seconds=1))
    assert clock_services.table_enforce_deadline(table.pk)


def discard_of(table: Table, user: User) -> dict[str, Any]:
    state = state_of(table)
    options = [a.to_dict() for a in legal_actions(state, user.username)]
    return next(a for a in options if a["type"] == "discard")


def test_a_stock_draw_shows_its_card_to_the_drawer_alone() -> None:
    ann, _ = users = players("ann", "bob")
    table = started_table(users)
    assert moves(table, None) == [
        {
            "version": 1,
            "hand": 1,
            "kind": "deal",
            "player": None,
            "actor": None,
            "cards": [],
            "count": None,
            "meld": None,
            "text": "hand 1 dealt to ann and bob",
        }
    ]
    assert moves(table, "ann")[0]["text"] == "hand 1 dealt to you and bob"
    act(table, ann, {"type": "draw", "source": "stock"})
    drawn = state_of(table).drawn
    assert drawn is not None
    card = format_card(drawn)
    own = last(table, "ann")
    assert (own["kind"], own["player"], own["count"]) == ("draw", "ann", 1)
    assert own["cards"] == [card] and own["text"] == f"you drew {card_phrase(card)}"
    for reader in ("bob", None):
        other = last(table, reader)
        assert other["cards"] == [] and other["text"] == "ann drew from the stock"
    discard = discard_of(table, ann)
    act(table, ann, discard)
    assert last(table, "bob")["text"] == f"ann discarded {card_phrase(discard['card'])}"
    assert last(table, "ann")["text"] == f"you discarded {card_phrase(discard['card'])}"
    assert last(table, None)["cards"] == [discard["card"]]
    assert [m["version"] for m in moves(table, None)] == [1, 2, 3]


def test_a_timeout_an_absence_and_a_return() -> None:
    ann, bob = users = players("ann", "bob")
    table = started_table(users, overrides={"max_timeouts": 1})
    time_out(table)
    row = TableEvent.objects.get(table=table, kind="timeout")
    drew, discarded = row.events[0]["card"], row.events[1]["card"]
    mine, public = moves(table, "ann"), moves(table, None)
    assert [m["kind"] for m in public] == ["deal", "timeout", "absent"]
    if drew == discarded:
        shown = f"the server drew and discarded {card_phrase(discarded)}"
        assert mine[1]["cards"] == [discarded]
    else:
        shown = f"the server drew {card_phrase(drew)} and discarded {card_phrase(discarded)}"
        assert mine[1]["cards"] == [drew, discarded]
    assert mine[1]["text"] == f"your time ran out: {shown}"
    assert public[1]["text"] == (
        f"ann's time ran out: the server drew and discarded {card_phrase(discarded)}"
    )
    assert public[1]["cards"] == [discarded] and public[1]["player"] == "ann"
    assert public[2]["text"] == "ann is absent: the server plays their turns"
    assert mine[2]["text"] == "you are absent: the server plays your turns"
    # Bob plays; Ann's turn is played at once, then she comes back.
    act(table, bob, {"type": "draw", "source": "stock"})
    act(table, bob, discard_of(table, bob))
    assert last(table, "bob")["text"].startswith("the server played ann's turn: drew")
    clock_services.table_back(table_id=table.pk, user=ann)
    assert last(table, None)["text"] == "ann is back"
    assert last(table, "ann")["text"] == "you are back"
    assert last(table, "ann")["kind"] == "back"


def test_a_hand_ends_when_the_stock_runs_out_then_the_next_is_dealt() -> None:
    users = players("ann", "bob")
    table = started_table(users, overrides={"stock_out": "end"})
    play_simple(table, users, until=lambda t: state_of(t).hand_number == 2)
    ended = [m for m in moves(table, None) if m["kind"] == "hand_over"]
    assert len(ended) == 1 and ended[0]["hand"] == 1 and ended[0]["player"] is None
    scores = state_of(table).hands[0].scores
    nets = ", ".join(
        f"{n} {s.net:+d}" if s.net else f"{n} 0"
        for n, s in zip(("ann", "bob"), scores, strict=True)
    )
    assert ended[0]["text"] == f"hand 1: the stock ran out ({nets})"
    dealt = moves(table, None)[-1]
    assert (dealt["kind"], dealt["hand"], dealt["text"]) == ("deal", 2, "hand 2 dealt")
    assert dealt["version"] == ended[0]["version"] + 1


def test_a_reshuffled_stock_is_told_with_the_draw() -> None:
    users = players("ann", "bob")
    table = started_table(users, overrides={"stock_out": "reshuffle"})

    def reshuffled() -> TableEvent | None:
        rows = TableEvent.objects.filter(table=table).order_by("-version")[:2]
        return next((r for r in rows if any(e["type"] == "reshuffled" for e in r.events)), None)

    play_simple(table, users, until=lambda t: reshuffled() is not None)
    row = reshuffled()
    assert row is not None
    size = next(e for e in row.events if e["type"] == "reshuffled")["stock"]
    told = next(m for m in moves(table, None) if m["version"] == row.version)
    assert told["text"] == f"the pile was shuffled into a new stock ({size} cards); " + (
        f"{told['player']} drew from the stock"
    )


def test_every_kind_of_row_in_words(fixed_seeds: None) -> None:
    """A game with a row of every kind (``payload_world.logged_table``): taking from the pile,
    melds with a joker, lay-offs, a hand's end, a timeout, pause, resume, a withdrawal, an absent
    player's turn and the organizer's decision. It is over: every card shows to everyone."""
    table = logged_table(staff())
    public = moves(table, None)
    kinds = {m["kind"] for m in public}
    assert {"deal", "draw", "take", "meld", "layoff", "discard", "hand_over", "timeout"} <= kinds
    assert {"pause", "resume", "withdraw", "adjudicate"} <= kinds
    assert all(m["cards"] for m in public if m["kind"] == "draw")  # revealed: the game is over
    by_kind = {m["kind"]: m for m in public}
    assert by_kind["pause"]["text"] == "the organizer paused the table"
    assert by_kind["pause"]["actor"] == "director" and by_kind["pause"]["player"] is None
    assert by_kind["resume"]["text"] == "the organizer resumed the table"
    assert by_kind["withdraw"]["text"] == (
        "the organizer withdrew jo (went home): the server plays their turns"
    )
    assert by_kind["adjudicate"]["text"] == (
        "the organizer decided the game (late): hal 1st, ian 2nd, jo 3rd"
    )
    for m in public:
        if m["kind"] == "meld":
            assert m["text"] == f"{m['player']} melded " + " ".join(map(card_words, m["cards"]))
            assert isinstance(m["meld"], int)
        if m["kind"] == "layoff":
            assert m["text"].endswith(f" on meld {m['meld']}")
        if m["kind"] == "take" and m["count"] > 1:
            shown = " ".join(map(card_words, m["cards"]))
            assert m["text"] == f"{m['player']} took {m['count']} from the pile ({shown})"
    jokers = [m for m in public if any(c.startswith("*") and len(c) > 1 for c in m["cards"])]
    assert jokers, "no joker was melded"
    assert "joker as " in jokers[0]["text"]
    went = next(m for m in public if m["kind"] == "hand_over")
    assert went["text"].startswith(f"hand 1: {went['player']} went out (")
    mine = moves(table, went["player"])
    assert next(m for m in mine if m["kind"] == "hand_over")["text"].startswith("hand 1: you went")


def test_a_rummy_call_and_the_games_end(fixed_seeds: None) -> None:
    users = players("ann", "bob", "cid")
    table = started_table(users, overrides={"rummy_call": True, "target": 150})
    play_greedy(table, users, until=lambda t: False)
    table.refresh_from_db()
    assert table.status == Table.Status.FINISHED
    public = moves(table, None)
    over = public[-1]
    winner = state_of(table).winner
    assert over["kind"] == "game_over" and over["player"] == state_of(table).names[winner or 0]
    assert over["text"] == f"game over: {over['player']} wins"
    assert moves(table, over["player"])[-1]["text"] == "game over: you win"
    rummies = [m for m in public if m["kind"] == "rummy"]
    for m in rummies:
        assert m["text"].startswith(f"{m['player']} called Rummy!: took {m['count']} from the pile")
    hands = [m["hand"] for m in public]
    assert hands == sorted(hands) and hands[-1] == state_of(table).hand_number


def test_card_words() -> None:
    assert [card_words(c) for c in ("QS", "10H", "AD", "7C", "*9S", "*")] == [
        "Q♠", "10♥", "A♦", "7♣", "joker as 9♠", "joker",
    ]  # fmt: skip


def test_one_card_in_a_sentence_names_a_joker_with_its_article() -> None:
    # "you drew a joker", not "you drew joker"; a declared joker in a meld keeps its card.
    assert [card_phrase(c) for c in ("7C", "*", "*9S")] == ["7♣", "a joker", "joker as 9♠"]


def test_a_push_reads_the_rows_it_tells_once_for_every_frame(
    monkeypatch: pytest.MonkeyPatch, django_assert_num_queries: Any
) -> None:
    users = players("ann", "bob", "cid", "dan")
    table = started_table(users)
    since = table.version
    act(table, users[0], {"type": "draw", "source": "stock"})
    table.refresh_from_db()
    seats = table_seats(table)
    sent: list[list[tuple[str, dict[str, Any]]]] = []
    monkeypatch.setattr(push, "group_send_many", sent.append)
    monkeypatch.setattr(push, "nobody_listens", lambda groups: False)  # as if a socket listened
    with django_assert_num_queries(1):  # the new rows, for the five frames
        push.push_table(table, seats, since)
    frames = pushed_frames(sent[0])
    assert len(frames) == 5
    assert [m["text"] for m in frames[0]["moves"]] == [
        f"you drew {card_phrase(format_card(state_of(table).drawn))}"  # type: ignore[arg-type]
    ]
    assert [m["text"] for f in frames[1:] for m in f["moves"]] == ["ann drew from the stock"] * 4
    with django_assert_num_queries(0):  # a push that logged nothing (a connection flag)
        push.push_table(table, seats)
    assert all(frame["moves"] == [] for frame in pushed_frames(sent[1]))
    assert {frame["moves_since"] for frame in pushed_frames(sent[1])} == {table.version}


def test_a_change_tells_its_moves_from_the_rows_it_wrote(django_assert_num_queries: Any) -> None:
    """The push after an action reads no log row: the rows its change wrote are kept on the
    table it changed, and they tell the same moves as the rows read back."""
    users = players("ann", "bob", "cid")
    table = started_table(users)
    result = act(table, users[0], {"type": "draw", "source": "stock"})
    changed, since = result.table, result.since
    assert changed.recorded and changed.recorded[-1].version == changed.version
    with django_assert_num_queries(0):
        kept = log_since(changed, since)
    read = log_since(Table.objects.get(pk=table.pk), since)
    assert [r.pk for r in kept.rows] == [r.pk for r in read.rows] != []
    assert kept.moves("ann") == read.moves("ann") and kept.moves(None) == read.moves(None)
    with django_assert_num_queries(1):  # rows the instance did not write are read
        assert log_since(changed, 0).rows[0].kind == TableEvent.Kind.START


def pushed_frames(messages: list[tuple[str, dict[str, Any]]]) -> list[dict[str, Any]]:
    """The frames of a push's ``table.frames`` message, decoded: the seats' and the public."""
    (group, message), *_ = messages
    assert group.startswith("table-") and message["type"] == "table.frames"
    encoded = [*message["frames"].values(), message["public"]]
    return [json.loads(text) for _, text in encoded]


def test_a_timeout_that_reshuffled_the_pile_says_so() -> None:
    """A row as the clock writes it when the stock ran dry on a timed-out turn (``reshuffle``
    rules); ``1 card`` in the singular."""
    row = TableEvent(
        version=9,
        kind=TableEvent.Kind.TIMEOUT,
        player="ann",
        data={"by": "timer"},
        events=[
            {"type": "reshuffled", "player": None, "stock": 1, "reshuffles": 1},
            {
                "type": "drew",
                "player": "ann",
                "source": "stock",
                "card": "4D",
                "_private": ["card"],
            },
            {"type": "discarded", "player": "ann", "card": "7C"},
            {"type": "timeout", "player": "ann", "timeouts": 1, "absent": False},
        ],
    )
    told = "the server shuffled the pile into a new stock (1 card), drew"
    public = table_moves([row], None, reveal=False, hand=2)
    assert [(m["kind"], m["hand"], m["text"]) for m in public] == [
        ("timeout", 2, f"ann's time ran out: {told} and discarded 7♣")
    ]
    assert public[0]["cards"] == ["7C"]
    own = table_moves([row], "ann", reveal=False, hand=2)
    assert own[0]["text"] == f"your time ran out: {told} 4♦ and discarded 7♣"
    assert own[0]["cards"] == ["4D", "7C"]


def test_a_push_nobody_in_the_process_hears_is_not_built(
    monkeypatch: pytest.MonkeyPatch, django_assert_num_queries: Any
) -> None:
    """On the in-memory layer (one process) with no socket on the table or the lobby, a push
    reads and builds nothing (``simulate_event``, a timer of a table nobody watches)."""
    users = players("ann", "bob")
    table = started_table(users)
    seats = table_seats(table)
    monkeypatch.setattr(config_push, "get_channel_layer", InMemoryChannelLayer)
    monkeypatch.setattr(push, "group_send_many", lambda messages: pytest.fail("sent"))
    with django_assert_num_queries(0):
        push.push_table(table, None, 0)
    built: list[Any] = []
    monkeypatch.setattr(push, "encode_frame", lambda frame: built.append(frame) or ("", ""))
    push.push_table(table, seats, table.version)
    assert built == []
