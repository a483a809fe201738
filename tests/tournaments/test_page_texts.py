"""The event page reads right (issue 17): its status line from the event and round state, each
player's status from their entry (``tournaments.standing``), your own box from your entry, the
registration box only while registration is open, and the rules text and the clock row from the
rules the tables play. The issue's finished single-elimination event is replayed here."""

from __future__ import annotations

import random
import re
from html import unescape
from typing import Any

import pytest
from django.test import Client

from accounts.models import User
from games import finalization
from games.models import RuleSet
from tests.tournaments.factories import (
    FOUR,
    decide,
    decide_round,
    entry_of,
    make_event,
    names_at,
    refused,
    round_of,
    run_hooks,
    started_event,
)
from tournaments import entries, push
from tournaments.bracket_view import event_bracket
from tournaments.entry_reads import event_entries
from tournaments.models import Tournament
from tournaments.organizer import event_pause
from tournaments.push import event_group
from tournaments.selectors import event_detail
from tournaments.services import event_cancel
from tournaments.simulation import play_table

pytestmark = pytest.mark.django_db


def page(user: User | None, event: Tournament) -> str:
    client = Client()
    if user is not None:
        client.force_login(user)
    response = client.get(event.get_absolute_url())
    assert response.status_code == 200
    return response.content.decode()


def text_of(html: str, element_id: str) -> str:
    """The text of the element with ``element_id`` (tags dropped, spaces collapsed)."""
    found = re.search(rf'<(\w+)[^>]* id="{element_id}"[^>]*>(.*?)</\1>', html, re.S)
    assert found, element_id
    return " ".join(unescape(re.sub(r"<[^>]+>", " ", found.group(2))).split())


def statuses(html: str) -> dict[str, str]:
    """Each player of the players' list with the status it shows."""
    rows = re.findall(r'id="entry-(\w+)".*?<span class="standing">([^<]*)</span>', html, re.S)
    return dict(rows)


def user(name: str) -> User:
    return User.objects.get(username=name)


def finished_bracket(director: User) -> Tournament:
    """FOUR in a single elimination played out, alphabetical order winning: ann beats dan and
    bob beats cid in the semi-finals, ann beats bob in the final."""
    event = started_event(director, FOUR)
    decide_round(event, 1, director)
    decide_round(event, 2, director)
    event.refresh_from_db()
    assert event.status == Tournament.Status.FINISHED
    return event


def test_the_finished_bracket_of_the_issue_reads_right(director: User) -> None:
    event = finished_bracket(director)
    html = page(None, event)
    assert text_of(html, "status-text") == "Finished · won by ann · 4 players"
    assert statuses(html) == {
        "ann": "Winner",
        "bob": "2nd place",
        "cid": "3rd place",
        "dan": "3rd place",
    }
    assert text_of(html, "you-message") == "This event is finished."
    assert "to register" not in html
    dan = page(user("dan"), event)
    assert text_of(dan, "you-message") == "You finished in 3rd place."
    assert "Withdraw" not in dan and "Register" not in dan


def test_a_running_bracket_counts_and_names_the_knocked_out(director: User) -> None:
    event = started_event(director, FOUR)
    html = page(None, event)
    assert text_of(html, "status-text") == "Running · Semi-finals: running · 4 playing"
    decide_round(event, 1, director)
    event.refresh_from_db()
    html = page(None, event)
    assert text_of(html, "status-text") == "Running · Final: running · 2 playing, 2 knocked out"
    assert statuses(html) == {
        "ann": "Playing",
        "bob": "Playing",
        "cid": "Knocked out",
        "dan": "Knocked out",
    }
    assert text_of(html, "you-message") == "Registration is closed: the event is under way."
    assert "to register" not in html
    dan = page(user("dan"), event)
    assert text_of(dan, "you-message") == "You are knocked out: the event goes on without you."
    assert "Withdraw" not in dan
    ann = page(user("ann"), event)
    assert text_of(ann, "you-message") == "You are playing." and ">Withdraw</button>" in ann


def test_a_player_is_knocked_out_as_soon_as_their_match_is_decided(director: User) -> None:
    """Not when the round's last table is in: the other semi-final is still being played."""
    event = started_event(director, FOUR)
    semi = next(t for t in round_of(event).tables.all() if "dan" in names_at(t))
    decide(semi, director, sorted(names_at(semi)))
    event.refresh_from_db()
    html = page(None, event)
    status = "Running · Semi-finals: running · 3 playing, 1 knocked out"
    assert text_of(html, "status-text") == status
    assert statuses(html)["dan"] == "Knocked out"
    assert statuses(html)["ann"] == "Playing" and statuses(html)["cid"] == "Playing"
    dan = page(user("dan"), event)
    assert text_of(dan, "you-message") == "You are knocked out: the event goes on without you."
    assert ">Withdraw</button>" not in dan
    refused("wrong_status", 409, entries.entry_withdraw, event_id=event.pk, user=user("dan"))


def test_a_knocked_out_player_cannot_withdraw(director: User) -> None:
    event = started_event(director, FOUR)
    decide_round(event, 1, director)
    refused("wrong_status", 409, entries.entry_withdraw, event_id=event.pk, user=user("dan"))
    assert entry_of(event, "dan").status == "playing"


def test_status_lines_before_the_start(director: User) -> None:
    draft = make_event(director, name="Draft night")
    assert event_detail(draft)["status_text"] == "Draft · registration has not opened"
    event = make_event(director, status="registration", players=["ann"], max_players=8)
    assert event_detail(event)["status_text"] == "Registration open · 1 registered of 8 places"
    assert text_of(page(None, event), "you-login") == "Log in to register."
    entries.entry_register(event_id=event.pk, user=User.objects.create(username="bob"))
    checking = make_event(director, name="Later", status="check_in", players=["cid", "dan"])
    assert event_detail(checking)["status_text"] == "Check-in open · 2 registered, 2 checked in"
    html = page(None, checking)
    assert "to register" not in html
    assert text_of(html, "you-message") == (
        "Registration is closed: check-in is open to the registered players."
    )


def test_a_visitor_is_not_asked_to_log_in_to_a_full_event(director: User) -> None:
    event = make_event(director, status="registration", players=["ann", "bob"], max_players=2)
    html = page(None, event)
    assert text_of(html, "you-message") == "All 2 places are taken."
    assert "to register" not in html


def test_a_paused_event(director: User) -> None:
    event = started_event(director, ["ann", "bob"])
    event_pause(event_id=event.pk, actor=director)
    event.refresh_from_db()
    assert event_detail(event)["status_text"] == "Running (paused) · Final: running · 2 playing"


def test_a_cancelled_event(director: User) -> None:
    event = started_event(director, ["ann", "bob"])
    event = event_cancel(event_id=event.pk, actor=director, reason="rain")
    html = page(None, event)
    assert text_of(html, "status-text") == "Cancelled"
    assert statuses(html) == {"ann": "Event cancelled", "bob": "Event cancelled"}
    assert text_of(page(user("ann"), event), "you-message") == "The event was cancelled."


def test_the_rules_text_and_the_clock_read_the_same_turn(director: User) -> None:
    """The rule set's turn clock is 60 s, the event's 30 s: the tables play 30 s, and so do the
    clock row and the rules text (the issue's page said 30 in one and 60 in the other)."""
    ruleset = RuleSet.objects.get(slug="standard")
    assert ruleset.turn_seconds == 60
    event = started_event(director, ["ann", "bob"], turn_seconds=30, time_bank_seconds=90)
    table = round_of(event).tables.get().table
    assert table is not None and table.turn_seconds == 30
    html = page(None, event)
    assert text_of(html, "clock") == "30 seconds per turn, plus a 90-second time bank each"
    rules = text_of(html, "rules-text")
    assert "Each turn has 30 seconds, plus a 90-second time bank per game." in rules
    assert "60 seconds" not in rules


def test_the_players_list_shows_current_ratings(director: User) -> None:
    event = started_event(director, FOUR)
    before = {e["username"]: e["rating_now"] for e in event_entries(event)}
    assert before == dict.fromkeys(FOUR, 1500)
    for table in round_of(event).tables.all():  # played out by bots: a rated game
        assert table.table is not None
        play_table(table.table, random.Random(7))
        run_hooks(table.table.pk)
    after = {e["username"]: e["rating_now"] for e in event_entries(event)}
    assert sorted(after.values()) != sorted(before.values())
    assert sum(after.values()) in range(5998, 6003)  # two winners up, two losers down
    html = page(None, event)
    shown = re.search(r'id="entry-ann".*?<span class="rating"[^>]*>(\d+)</span>', html, re.S)
    assert shown and int(shown.group(1)) == after["ann"]


def test_the_bracket_shows_each_match_s_scores(director: User) -> None:
    event = started_event(director, FOUR)
    for table in round_of(event).tables.all():  # played out by bots: real game points
        assert table.table is not None
        play_table(table.table, random.Random(3))
        run_hooks(table.table.pk)
    bracket = event_bracket(event)
    assert bracket is not None
    semis, final = (c["matches"] for c in bracket["sides"][0]["columns"])
    for match in semis:
        table = round_of(event).tables.get(key=match["key"])
        points = dict(zip(names_at(table), table.points or [], strict=True))
        assert {slot["username"]: slot["points"] for slot in match["slots"]} == points
        assert max(points.values()) >= 50  # the target: a played game's totals
        html = page(None, event)
        box = html[html.index(f'id="match-{match["key"]}"') :].split("</li>")[0]
        shown = re.findall(
            r'class="name">(\w+)</span>.*?<span class="score"[^>]*>(-?\d+)</span>', box, re.S
        )
        assert {name: int(score) for name, score in shown} == points
    assert [slot["points"] for slot in final[0]["slots"]] == [None, None]  # not played yet


def test_a_rated_game_tells_the_event_s_watchers_the_ratings_moved(
    director: User, monkeypatch: pytest.MonkeyPatch, django_capture_on_commit_callbacks: Any
) -> None:
    event = started_event(director, ["ann", "bob"])
    game = round_of(event).tables.get().table
    assert game is not None
    play_table(game, random.Random(11))
    sent: list[tuple[str, dict[str, str]]] = []
    monkeypatch.setattr(push, "group_send", lambda group, message: sent.append((group, message)))
    with django_capture_on_commit_callbacks(execute=True):
        finalization.run_hook(game.pk, "ratings")
    assert (event_group(event.pk), {"type": "event.changed", "what": "ratings"}) in sent
