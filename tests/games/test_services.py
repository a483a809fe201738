"""games.services: create, join, leave, start and actions, with their refusals and the log."""

from __future__ import annotations

import pytest
from prometheus_client import REGISTRY

from games import services
from games.engine.errors import ERROR_CODES
from games.engine.rules import Rules
from games.engine.scoring import Placement, game_placements
from games.engine.shuffle import commitment
from games.engine.state import PlayerState
from games.errors import TableError
from games.models import GameResult, RuleSet, Seat, Table, TableEvent
from games.selectors import table_log, table_mismatch, table_payload, table_rebuild
from tests.games.tables import (
    act,
    play_greedy,
    play_simple,
    players,
    started_table,
    state_of,
    to_move,
)

pytestmark = pytest.mark.django_db


def refused(code: str, call: object, *args: object, **kwargs: object) -> TableError:
    with pytest.raises(TableError) as info:
        call(*args, **kwargs)  # type: ignore[operator]
    assert info.value.code == code, info.value
    return info.value


# --- create ------------------------------------------------------------------------------------


def test_create_seats_the_creator_and_freezes_the_effective_rules() -> None:
    (ann,) = players("ann")
    table = services.table_create(
        creator=ann, ruleset="strict-club", seats=4, overrides={"target": 300}, turn_seconds=30
    )
    assert table.status == "waiting" and table.version == 0 and table.state is None
    assert list(table.seat_set.values_list("user__username", flat=True)) == ["ann"]
    expected = Rules.from_dict({"preset": "strict-club", "target": 300, "turn_seconds": 30})
    assert table.rules == expected.to_dict()
    assert table.turn_seconds == 30
    # A later edit of the rule set never reaches the table.
    RuleSet.objects.filter(slug="strict-club").update(target=150, rummy_call=False)
    table.refresh_from_db()
    assert table.engine_rules() == expected


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"seats": 1}, "seats"),
        ({"seats": 9}, "seats"),
        ({"seats": "4"}, "seats"),
        ({"turn_seconds": 0}, "turn_seconds"),
        ({"turn_seconds": 3601}, "turn_seconds"),
        ({"overrides": {"jokers_per_deck": 3}}, "jokers_per_deck"),
        ({"overrides": {"colour": "red"}}, "colour"),
        ({"overrides": {"hand_size": 20}}, "hand_size"),
        ({"overrides": [1]}, "rules"),
        ({"ruleset": "nope"}, "ruleset"),
        ({"rated": "yes"}, "rated"),
    ],
)
def test_create_refuses_bad_settings_naming_the_field(kwargs: dict, field: str) -> None:
    (ann,) = players("ann")
    args = {"creator": ann, "ruleset": "standard", "seats": 4, **kwargs}
    error = refused("bad_request", services.table_create, **args)
    assert error.message.startswith(field), error.message
    assert not Table.objects.exists()


# --- join, leave, start --------------------------------------------------------------------------


def test_join_fills_the_table_and_it_starts_by_itself() -> None:
    ann, bob, cid = players("ann", "bob", "cid")
    table = services.table_create(creator=ann, ruleset="standard", seats=3)
    services.table_join(table_id=table.pk, user=bob)
    services.table_join(table_id=table.pk, user=bob)  # twice is once
    table.refresh_from_db()
    assert table.status == "waiting" and table.seat_set.count() == 2
    services.table_join(table_id=table.pk, user=cid)
    table.refresh_from_db()
    assert table.status == "playing" and table.version == 1
    assert state_of(table).names == ("ann", "bob", "cid")
    (dan,) = players("dan")
    error = refused("already_started", services.table_join, table_id=table.pk, user=dan)
    assert error.status == 409


def test_join_a_full_table_is_refused() -> None:
    ann, bob, cid = players("ann", "bob", "cid")
    table = services.table_create(creator=ann, ruleset="standard", seats=2)
    # Full but not started is impossible through the services; make the seat count shrink.
    Table.objects.filter(pk=table.pk).update(seats=1)
    error = refused("table_full", services.table_join, table_id=table.pk, user=bob)
    assert error.status == 409
    refused("not_found", services.table_join, table_id=table.pk + 99, user=cid)


def test_leave_hands_the_table_on_and_the_last_leaver_aborts_it() -> None:
    ann, bob = players("ann", "bob")
    table = services.table_create(creator=ann, ruleset="standard", seats=4)
    services.table_join(table_id=table.pk, user=bob)
    refused("not_seated", services.table_leave, table_id=table.pk, user=players("cid")[0])
    services.table_leave(table_id=table.pk, user=ann)
    table.refresh_from_db()
    assert table.creator == bob and table.status == "waiting"
    services.table_leave(table_id=table.pk, user=bob)
    table.refresh_from_db()
    assert table.status == "aborted" and not table.seat_set.exists()


def test_leave_after_the_start_is_refused() -> None:
    users = players("ann", "bob")
    table = started_table(users)
    refused("already_started", services.table_leave, table_id=table.pk, user=users[1])


def test_start_only_by_the_creator_with_two_seated() -> None:
    ann, bob = players("ann", "bob")
    table = services.table_create(creator=ann, ruleset="standard", seats=4)
    refused("not_enough_players", services.table_start, table_id=table.pk, user=ann)
    services.table_join(table_id=table.pk, user=bob)
    error = refused("forbidden", services.table_start, table_id=table.pk, user=bob)
    assert error.status == 403
    services.table_start(table_id=table.pk, user=ann)
    table.refresh_from_db()
    assert table.status == "playing" and state_of(table).names == ("ann", "bob")
    refused("already_started", services.table_start, table_id=table.pk, user=ann)


def test_start_refuses_a_table_its_rules_cannot_deal_to() -> None:
    ann, bob = players("ann", "bob")
    # 13 cards each for two is fine with one deck, but hand_size_two 30 is not.
    table = services.table_create(
        creator=ann, ruleset="standard", seats=3, overrides={"hand_size_two": 30}
    )
    services.table_join(table_id=table.pk, user=bob)
    error = refused("bad_request", services.table_start, table_id=table.pk, user=ann)
    assert "hand_size_two" in error.message
    table.refresh_from_db()
    assert table.status == "waiting"


# --- actions -------------------------------------------------------------------------------------


def test_an_action_bumps_the_version_and_appends_one_log_row() -> None:
    users = players("ann", "bob")
    table = started_table(users)
    mover = to_move(table, users)
    result = act(table, mover, {"type": "draw", "source": "stock"}, client_id="c-1")
    assert result.version == 2 and not result.repeated
    row = TableEvent.objects.get(table=table, version=2)
    assert (row.kind, row.actor, row.player, row.client_id) == ("action", mover, "ann", "c-1")
    assert row.action == {"type": "draw", "source": "stock"}
    assert row.events[0]["type"] == "drew" and "card" in row.events[0]
    assert state_of(table).phase == "play"


def actions_timed(outcome: str) -> float:
    return REGISTRY.get_sample_value("rummy_table_action_seconds_count", {"outcome": outcome}) or 0


def test_each_action_is_timed_by_its_outcome() -> None:
    """The histogram behind actions per second and action latency (config.metrics)."""
    users = players("ann", "bob")
    table = started_table(users)
    mover = to_move(table, users)
    before = {o: actions_timed(o) for o in ("applied", "repeated", "refused")}
    draw = {"type": "draw", "source": "stock"}
    act(table, mover, draw, client_id="c-1")
    act(table, mover, draw, client_id="c-1")
    refused("not_your_turn", act, table, next(u for u in users if u != mover), draw)
    after = {o: actions_timed(o) - before[o] for o in before}
    assert after == {"applied": 1, "repeated": 1, "refused": 1}


def test_refusals_before_during_and_after_the_game() -> None:
    ann, bob, cid = players("ann", "bob", "cid")
    draw = {"type": "draw", "source": "stock"}
    waiting = services.table_create(creator=ann, ruleset="standard", seats=2)
    refused(
        "wrong_phase",
        services.table_apply_action,
        table_id=waiting.pk,
        user=ann,
        action=draw,
        version=0,
    )
    table = started_table([ann, bob])
    refused("not_seated", act, table, cid, draw)
    refused("not_your_turn", act, table, bob, draw)
    refused("wrong_phase", act, table, ann, {"type": "discard", "card": "AS"})
    refused("bad_request", act, table, ann, {"type": "pass"})
    refused("bad_request", act, table, ann, "draw")
    error = refused(
        "stale_version",
        services.table_apply_action,
        table_id=table.pk,
        user=ann,
        action=draw,
        version=0,
    )
    assert error.status == 409 and error.extra == {"version": 1}
    refused(
        "bad_request",
        services.table_apply_action,
        table_id=table.pk,
        user=ann,
        action=draw,
        version="1",
    )
    refused("bad_request", act, table, ann, draw, client_id="x" * 101)
    table.refresh_from_db()
    assert table.version == 1 and TableEvent.objects.filter(table=table).count() == 1


def test_a_repeated_client_id_is_applied_once_and_answered_the_same() -> None:
    users = players("ann", "bob")
    table = started_table(users)
    ann = users[0]
    first = act(table, ann, {"type": "draw", "source": "stock"}, client_id="same")
    again = services.table_apply_action(
        table_id=table.pk,
        user=ann,
        action={"type": "draw", "source": "stock"},
        version=1,
        client_id="same",
    )
    assert again.repeated and again.version == first.version == 2
    assert again.state == first.state
    # Once the table has moved on, the repeat still gets the answer of its own change.
    card = state_of(table).players[0].hand[0]
    from games.engine.cards import format_card

    act(table, ann, {"type": "discard", "card": format_card(card)})
    later = services.table_apply_action(
        table_id=table.pk, user=ann, action={}, version=0, client_id="same"
    )
    assert later.repeated and later.version == 2 and later.state == first.state
    table.refresh_from_db()
    assert table.version == 3
    # Another player's client_id space is their own.
    bob = users[1]
    result = act(table, bob, {"type": "draw", "source": "stock"}, client_id="same")
    assert not result.repeated and result.version == 4


def test_a_reused_client_id_applies_no_new_body_whether_it_would_pass_or_fail() -> None:
    """The key decides, never the body: at the current version, a reused client_id with a move
    the engine would take, or one it would refuse, gets the first change's answer."""
    users = players("ann", "bob")
    table = started_table(users)
    ann = users[0]
    first = act(table, ann, {"type": "draw", "source": "stock"}, client_id="same")
    card = state_of(table).players[0].hand[0]
    from games.engine.cards import format_card

    legal = {"type": "discard", "card": format_card(card)}
    refused_now = {"type": "draw", "source": "stock"}  # wrong_phase: drawn already
    for body in (legal, refused_now):
        again = act(table, ann, body, client_id="same")
        assert again.repeated and again.version == first.version == 2
        assert again.state == first.state
    table.refresh_from_db()
    assert table.version == 2 and TableEvent.objects.filter(table=table).count() == 2


@pytest.mark.parametrize("client_id", ["", "x" * 101, "nul\x00", "\ud800", "a\udfffb", 7])
@pytest.mark.parametrize("stale", [False, True])  # a stale version looks the client_id up
def test_a_client_id_no_column_can_hold_is_a_bad_request(client_id: object, stale: bool) -> None:
    users = players("ann", "bob")
    table = started_table(users)
    draw = {"type": "draw", "source": "stock"}
    version = table.version - stale
    call = services.table_apply_action
    kwargs = {"table_id": table.pk, "user": users[0], "action": draw, "version": version}
    refused("bad_request", call, **kwargs, client_id=client_id)
    table.refresh_from_db()
    assert table.version == 1 and TableEvent.objects.filter(table=table).count() == 1


def test_every_hand_has_a_fresh_committed_seed_revealed_when_it_ends() -> None:
    users = players("ann", "bob")
    table = started_table(users)
    first = table.deals[0]
    assert first["hand"] == 1 and first["commitment"] == commitment(first["seed"])
    view = table_payload(table, "ann")["view"]
    assert view["deals"] == [{"hand": 1, "commitment": first["commitment"], "seed": None}]
    assert "seed" not in view
    assert first["seed"] not in str(table_payload(table, None))
    play_simple(table, users, until=lambda t: len(t.deals) >= 2)
    second = table.deals[1]
    assert second["seed"] != first["seed"]
    view = table_payload(table, "bob")["view"]
    assert view["deals"][0]["seed"] == first["seed"]
    assert view["deals"][1] == {"hand": 2, "commitment": second["commitment"], "seed": None}
    log = table_log(table)
    assert log[0]["seed"] == first["seed"]
    deal = next(e for e in log if e["kind"] == "deal")
    assert deal["hand"] == 2 and deal["seed"] is None
    ended = next(e for e in log if "revealed" in e)
    assert ended["revealed"] == {"hand": 1, "seed": first["seed"]}
    assert second["seed"] not in str(log)


def test_the_revealed_seed_reproduces_the_deal_with_verify_deal() -> None:
    from games.engine.__main__ import main as engine_main

    users = players("ann", "bob", "cid")
    table = started_table(users)
    dealt = table_rebuild(table, upto=1)
    assert dealt is not None
    play_simple(table, users, until=lambda t: len(t.deals) >= 2)
    seed = table_payload(table, None)["view"]["deals"][0]["seed"]
    import contextlib
    import io
    import json

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        engine_main(["verify-deal", seed, "ann,bob,cid", "1"])
    printed = json.loads(out.getvalue())
    hands = printed["hands"]
    assert printed["commitment"] == table.deals[0]["commitment"]
    from games.engine.views import full_state

    start = full_state(dealt)
    assert hands == {p["name"]: p["hand"] for p in start["players"]}
    assert printed["discard"] == start["discard"] and printed["stock"] == start["stock"]


def test_a_finished_game_has_one_result_with_shared_places() -> None:
    users = players("ann", "bob")
    table = started_table(users, overrides={"target": 1})
    # One stock draw for certain (the greedy bots may take from the pile all game), so the log
    # below has a hidden card to reveal.
    act(table, to_move(table, users), {"type": "draw", "source": "stock"})
    play_greedy(table, users, until=lambda t: t.status != "playing")
    table.refresh_from_db()
    assert table.status == "finished" and table.deadline is None
    result = GameResult.objects.get(table=table)
    state = state_of(table)
    assert state.phase == "game_over"
    scores = {p.name: p.score for p in state.players}
    assert {p["player"]: p["score"] for p in result.placements} == scores
    assert [p["place"] for p in result.placements] == (
        [1, 1] if len(set(scores.values())) == 1 else [1, 2]
    )
    assert {p["user"] for p in result.placements} == {u.pk for u in users}
    assert result.hands == table.state["hands"]
    refused("game_over", act, table, users[0], {"type": "draw", "source": "stock"})
    # The log now shows what was hidden: every stock draw's card and every seed.
    log = table_log(table)
    draws = [e for row in log for e in row["events"] if e["type"] == "drew"]
    assert draws and all("card" in e for e in draws if e.get("source") == "stock")
    assert all(row["seed"] for row in log if row["kind"] in ("start", "deal"))


def test_placements_share_a_place_on_equal_scores() -> None:
    state = state_of(started_table(players("ann", "bob", "cid")))
    scored = state.evolve(
        players=(
            PlayerState("ann", score=50),
            PlayerState("bob", score=90),
            PlayerState("cid", score=50),
        )
    )
    assert game_placements(scored) == [
        Placement("bob", 1, 90),
        Placement("ann", 2, 50),
        Placement("cid", 2, 50),
    ]


def test_the_log_hides_stock_draws_while_the_game_runs() -> None:
    users = players("ann", "bob")
    table = started_table(users)
    act(table, users[0], {"type": "draw", "source": "stock"})
    drew = table_log(table)[1]["events"][0]
    assert drew == {"type": "drew", "player": "ann", "source": "stock"}
    assert table_mismatch(table) is None


def test_the_deadline_is_set_per_turn() -> None:
    users = players("ann", "bob")
    table = started_table(users, overrides={"turn_seconds": 45})
    first = table.deadline
    assert first is not None
    assert 44 <= (first - table.started_at).total_seconds() <= 46
    act(table, users[0], {"type": "draw", "source": "stock"})
    table.refresh_from_db()
    assert table.deadline == first  # the clock runs through the whole turn
    hand = state_of(table).players[0].hand
    from games.engine.cards import format_card

    act(table, users[0], {"type": "discard", "card": format_card(hand[-1])})
    table.refresh_from_db()
    assert table.deadline is not None and table.deadline > first


def test_connection_counts_never_change_the_game() -> None:
    users = players("ann", "bob")
    table = started_table(users)
    assert services.seat_connected(table_id=table.pk, user_id=users[0].pk, delta=1)
    assert table_payload(table, "bob")["view"]["players"][0]["connected"] is True
    services.seat_connected(table_id=table.pk, user_id=users[0].pk, delta=-1)
    services.seat_connected(table_id=table.pk, user_id=users[0].pk, delta=-1)
    assert Seat.objects.get(table=table, user=users[0]).connections == 0
    assert not services.seat_connected(table_id=table.pk, user_id=players("cid")[0].pk, delta=1)
    table.refresh_from_db()
    assert table.version == 1


def test_error_codes_are_the_protocol_codes() -> None:
    # Codes the services add to the protocol's, for the table's life outside the game.
    from games import errors

    extra = {errors.NOT_FOUND, errors.TABLE_FULL, errors.ALREADY_STARTED, errors.NOT_ENOUGH_PLAYERS}
    assert not extra & set(ERROR_CODES)
