"""The chat services with the database: text limits, the rate limit, mutes, deletion, a room
turned off, and who may read and write a table's and an event's rooms."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.db.models import F

from accounts.models import User
from chat.access import room_access
from chat.errors import ChatError
from chat.models import MAX_TEXT, ChatMessage
from chat.selectors import chat_history, chat_mutes
from chat.services import (
    BURST,
    BURST_SECONDS,
    SUSTAINED,
    chat_delete,
    chat_mute,
    chat_post,
    chat_room_set_enabled,
    chat_unmute,
)
from games.chat_rooms import table_room_key
from games.models import Table
from tests.games.tables import started_table
from tests.tournaments.factories import make_event, staff, users
from tournaments.chat_rooms import event_room_key

pytestmark = pytest.mark.django_db


@pytest.fixture
def people() -> dict[str, User]:
    return {u.username: u for u in users("ann", "bob", "cid")}


@pytest.fixture
def table(people: dict[str, User]) -> Table:
    return started_table([people["ann"], people["bob"]])


def refused(code: str, call: Any, **kwargs: Any) -> ChatError:
    with pytest.raises(ChatError) as caught:
        call(**kwargs)
    assert caught.value.code == code, caught.value.message
    return caught.value


def texts(room: str, viewer: User | None) -> list[str]:
    return [m["text"] for m in chat_history(room, viewer)]


def age(seconds: float) -> None:
    """Every message so far as if posted ``seconds`` earlier (the rate limit's clock)."""
    ChatMessage.objects.update(created=F("created") - timedelta(seconds=seconds))


def test_text_is_kept_raw_but_stripped_and_checked(table: Table, people: dict[str, User]) -> None:
    room = table_room_key(table.pk, "players")
    message = chat_post(room=room, author=people["ann"], text="  <b>gl</b> & hf ")
    assert message.text == "<b>gl</b> & hf"  # escaped where it is shown, never here
    assert chat_post(room=room, author=people["bob"], text="é" * MAX_TEXT).text == "é" * MAX_TEXT
    for bad in ("", "   ", "x" * (MAX_TEXT + 1), "a\nb", "nul\x00", "\u202eevil", 42, None):
        refused("chat_bad_text", chat_post, room=room, author=people["ann"], text=bad)
    assert texts(room, None) == ["<b>gl</b> & hf", "é" * MAX_TEXT]


def test_a_burst_then_the_limit_with_retry_after(table: Table, people: dict[str, User]) -> None:
    room, ann = table_room_key(table.pk, "players"), people["ann"]
    for i in range(BURST):
        chat_post(room=room, author=ann, text=f"m{i}")
    error = refused("chat_rate_limited", chat_post, room=room, author=ann, text="one more")
    assert error.status == 429 and 0 < error.extra["retry_after"] <= BURST_SECONDS
    # Per author and per room: Bob still talks, and Ann in the event's room.
    chat_post(room=room, author=people["bob"], text="me too")
    age(BURST_SECONDS + 1)
    chat_post(room=room, author=ann, text="later")
    # The sustained rate: bursts spread out still stop at SUSTAINED a minute.
    while ChatMessage.objects.filter(author=ann).count() < SUSTAINED:
        age(BURST_SECONDS + 1)
        for _ in range(min(BURST, SUSTAINED - ChatMessage.objects.filter(author=ann).count())):
            chat_post(room=room, author=ann, text="spread")
    age(BURST_SECONDS + 1)
    error = refused("chat_rate_limited", chat_post, room=room, author=ann, text="too many")
    assert error.extra["retry_after"] > 0
    assert "too many" not in texts(room, None)


def test_players_and_spectators_rooms(table: Table, people: dict[str, User]) -> None:
    players, rail = table_room_key(table.pk, "players"), table_room_key(table.pk, "spectators")
    ann, cid = people["ann"], people["cid"]
    chat_post(room=players, author=ann, text="gl")
    chat_post(room=rail, author=cid, text="ann will win")
    refused("forbidden", chat_post, room=players, author=cid, text="hi")  # not seated
    refused("forbidden", chat_post, room=rail, author=ann, text="hi")  # a player: not during play
    refused("chat_login_required", chat_post, room=rail, author=None, text="hi")
    # During the game the players do not read the rail; everyone else reads both rooms.
    assert not room_access(rail, ann).read
    assert room_access(rail, None).read and room_access(players, None).read
    assert texts(players, cid) == ["gl"] and texts(rail, None) == ["ann will win"]
    Table.objects.filter(pk=table.pk).update(status=Table.Status.FINISHED)
    assert room_access(rail, ann).read and texts(rail, ann) == ["ann will win"]
    refused("not_found", chat_post, room="table:999999:players", author=ann, text="hi")
    refused("not_found", chat_post, room="table:1:kitchen", author=ann, text="hi")
    refused("not_found", chat_post, room="nowhere", author=ann, text="hi")


def test_mute_hides_an_author_everywhere_until_unmuted(
    table: Table, people: dict[str, User]
) -> None:
    players, rail = table_room_key(table.pk, "players"), table_room_key(table.pk, "spectators")
    ann, bob, cid = people["ann"], people["bob"], people["cid"]
    chat_post(room=players, author=bob, text="from bob")
    chat_post(room=players, author=ann, text="from ann")
    chat_post(room=rail, author=cid, text="cid here")
    chat_mute(user=cid, username="bob")
    chat_mute(user=cid, username="bob")  # twice is once
    assert chat_mutes(cid) == {"muted": ["bob"]}
    assert texts(players, cid) == ["from ann"]
    assert texts(players, ann) == ["from bob", "from ann"]  # only for the muter
    refused("forbidden", chat_mute, user=cid, username="cid")
    refused("not_found", chat_mute, user=cid, username="nobody")
    chat_unmute(user=cid, username="bob")
    assert texts(players, cid) == ["from bob", "from ann"] and chat_mutes(cid)["muted"] == []


def test_only_moderators_delete_and_it_is_gone(table: Table, people: dict[str, User]) -> None:
    room = table_room_key(table.pk, "players")
    message = chat_post(room=room, author=people["ann"], text="rude")
    for who in (people["ann"], people["bob"], people["cid"]):
        refused("forbidden", chat_delete, message_id=message.pk, user=who)
    director = staff()
    chat_delete(message_id=message.pk, user=director)
    assert texts(room, None) == []
    message.refresh_from_db()
    assert message.deleted_by == director and message.deleted_at is not None
    refused("not_found", chat_delete, message_id=message.pk, user=director)


def test_an_event_room_its_organizers_and_its_switch(people: dict[str, User]) -> None:
    director = staff()
    event = make_event(director, status="registration")
    room = event_room_key(event.pk)
    chat_post(room=room, author=people["ann"], text="who's coming?")
    refused("chat_login_required", chat_post, room=room, author=None, text="me")
    refused("forbidden", chat_room_set_enabled, room=room, user=people["ann"], enabled=False)
    chat_room_set_enabled(room=room, user=director, enabled=False)
    error = refused("chat_off", chat_post, room=room, author=people["bob"], text="hello?")
    assert error.status == 403
    assert texts(room, None) == ["who's coming?"]  # still readable while off
    chat_room_set_enabled(room=room, user=director, enabled=True)
    chat_post(room=room, author=people["bob"], text="hello")
    # A draft is its organizers' only: its room is nobody else's either.
    draft = make_event(director, name="Secret")
    refused("not_found", chat_post, room=event_room_key(draft.pk), author=people["ann"], text="x")
    assert room_access(event_room_key(draft.pk), director).moderate


def test_an_events_organizers_moderate_its_tables_chat(people: dict[str, User]) -> None:
    director = staff()
    event = make_event(director, status="running", players=["p1", "p2"])
    organizer = people["cid"]
    event.admins.add(organizer)
    table = Table.objects.get(tournament_table__round__tournament=event)
    room = table_room_key(table.pk, "players")
    player = table.seat_set.first().user
    message = chat_post(room=room, author=player, text="gl")
    assert not room_access(room, people["ann"]).moderate
    chat_delete(message_id=message.pk, user=organizer)
    assert texts(room, None) == []
