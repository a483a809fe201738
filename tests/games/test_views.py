"""The lobby and table pages: listing, the create-table form, join/leave/start, the payload."""

import json
import re
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from accounts.models import User
from games import services
from games.models import RuleSet, Seat, Table
from tests.accounts.factories import UserFactory

pytestmark = pytest.mark.django_db

LOBBY = "/tables/"


def form_data(**fields: Any) -> dict[str, Any]:
    """A valid create-table form, with ``fields`` changed."""
    return {"ruleset": "standard", "seats": 2, "turn_seconds": 45, "rated": "on", **fields}


def logged_in(client: Client, user: User) -> Client:
    client.force_login(user)
    return client


def new_table(creator: User, seats: int = 2, **kwargs: Any) -> Table:
    return services.table_create(creator=creator, ruleset="standard", seats=seats, **kwargs)


def payload_of(html: str) -> dict[str, Any]:
    """The table payload the page embeds for table.js (``json_script``)."""
    found = re.search(r'<script id="table-data" type="application/json">(.*?)</script>', html, re.S)
    assert found, "the page embeds no table-data payload"
    return json.loads(found.group(1))


# --- The lobby -----------------------------------------------------------------------------------


def test_lobby_lists_open_tables_and_not_started_ones(client: Client) -> None:
    ann, bob, cid = UserFactory(username="ann"), UserFactory(username="bob"), UserFactory()
    open_table = new_table(ann, seats=3, overrides={"rummy_call": True}, rated=False)
    started = new_table(cid)
    services.table_join(table_id=started.pk, user=bob)  # full, so it starts by itself

    page = logged_in(client, bob).get(LOBBY).content.decode()

    assert f'href="/tables/{open_table.pk}/"' in page
    # The started table is among the games in play, to watch, not among those to join.
    opened, playing = page.split('id="playing-heading"')
    assert f'href="/tables/{started.pk}/"' not in opened
    assert f"Watch table {started.pk}" in playing
    assert f'action="/tables/{started.pk}/join/"' not in page
    assert 'href="/rules/standard/"' in page and "Standard" in page
    assert "The game is played to 500 points" in page
    assert "Rummy! calls" in page  # the house rule this table turned on
    assert "1/3 taken: ann" in page
    assert "seconds per turn" in page
    assert f'action="/tables/{open_table.pk}/join/"' in page
    assert '<option value="standard" selected>' in page  # the create form starts on it


def test_lobby_offers_no_join_to_a_seated_player(client: Client) -> None:
    ann = UserFactory(username="ann")
    table = new_table(ann)
    page = logged_in(client, ann).get(LOBBY).content.decode()
    assert f'action="/tables/{table.pk}/join/"' not in page
    assert f"Open table {table.pk}" in page


def test_create_table_redirects_to_it_with_the_creator_seated(client: Client) -> None:
    ann = UserFactory(username="ann")
    data = form_data(seats=3, target=300, stock_out="reshuffle", rummy_call="true")
    response = logged_in(client, ann).post(LOBBY, data)

    table = Table.objects.get()
    assert response.status_code == 302
    assert response["Location"] == f"/tables/{table.pk}/"
    assert list(Seat.objects.filter(table=table).values_list("user__username", flat=True)) == [
        "ann"
    ]
    assert table.seats == 3 and table.turn_seconds == 45 and table.rated
    assert table.overrides == {
        "target": 300,
        "stock_out": "reshuffle",
        "rummy_call": True,
        "turn_seconds": 45,
    }


def test_create_form_shows_field_errors(client: Client) -> None:
    ann = UserFactory()
    response = logged_in(client, ann).post(LOBBY, form_data(seats=9, turn_seconds=0))
    assert response.status_code == 200
    page = response.content.decode()
    assert 'class="errorlist' in page
    assert "Select a valid choice" in page
    assert not Table.objects.exists()


def test_create_form_shows_the_services_refusal(client: Client) -> None:
    RuleSet.objects.create(slug="one-deck", name="One deck always", two_decks_from=9)
    ann = UserFactory()
    data = form_data(ruleset="one-deck", seats=8, jokers_per_deck=0)
    response = logged_in(client, ann).post(LOBBY, data)
    assert response.status_code == 200
    assert "8 players x 7 cards need 57 cards" in response.content.decode()
    assert not Table.objects.exists()


def test_anonymous_visitors_see_a_login_link_and_cannot_create(client: Client) -> None:
    page = client.get(LOBBY).content.decode()
    assert 'href="/accounts/login/?next=/tables/"' in page
    assert "Create table</button>" not in page

    response = client.post(LOBBY, form_data())
    assert response.status_code == 302
    assert response["Location"].startswith("/accounts/login/")
    assert not Table.objects.exists()


# --- Join, leave, start --------------------------------------------------------------------------


def test_join_seats_the_player_and_a_full_table_starts(client: Client) -> None:
    ann, bob = UserFactory(), UserFactory()
    table = new_table(ann)
    response = logged_in(client, bob).post(reverse("games:table-join", args=[table.pk]))
    assert response.status_code == 302
    assert response["Location"] == f"/tables/{table.pk}/"
    table.refresh_from_db()
    assert table.status == Table.Status.PLAYING
    assert Seat.objects.filter(table=table, user=bob).exists()


def test_leave_gives_up_the_seat_and_returns_to_the_lobby(client: Client) -> None:
    ann, bob = UserFactory(), UserFactory()
    table = new_table(ann, seats=3)
    services.table_join(table_id=table.pk, user=bob)
    response = logged_in(client, bob).post(reverse("games:table-leave", args=[table.pk]))
    assert response.status_code == 302
    assert response["Location"] == LOBBY
    assert not Seat.objects.filter(table=table, user=bob).exists()


def test_start_deals_for_the_creator(client: Client) -> None:
    ann, bob = UserFactory(), UserFactory()
    table = new_table(ann, seats=4)
    services.table_join(table_id=table.pk, user=bob)
    response = logged_in(client, ann).post(reverse("games:table-start", args=[table.pk]))
    assert response.status_code == 302
    table.refresh_from_db()
    assert table.status == Table.Status.PLAYING and table.version == 1


def test_start_by_another_player_shows_the_refusal(client: Client) -> None:
    ann, bob = UserFactory(), UserFactory()
    table = new_table(ann, seats=4)
    services.table_join(table_id=table.pk, user=bob)
    client = logged_in(client, bob)
    response = client.post(reverse("games:table-start", args=[table.pk]), follow=True)
    assert "only the table&#x27;s creator starts it" in response.content.decode()
    table.refresh_from_db()
    assert table.status == Table.Status.WAITING


@pytest.mark.parametrize("action", ["table-join", "table-leave", "table-start"])
def test_seat_actions_refuse_get(client: Client, action: str) -> None:
    ann, bob = UserFactory(), UserFactory()
    table = new_table(ann, seats=3)
    response = logged_in(client, bob).get(reverse(f"games:{action}", args=[table.pk]))
    assert response.status_code == 405
    assert Seat.objects.filter(table=table).count() == 1


def test_seat_actions_need_a_login(client: Client) -> None:
    table = new_table(UserFactory())
    response = client.post(reverse("games:table-join", args=[table.pk]))
    assert response.status_code == 302
    assert response["Location"].startswith("/accounts/login/")


# --- The table page ------------------------------------------------------------------------------


def started_table() -> tuple[Table, User, User]:
    ann, bob = UserFactory(username="ann"), UserFactory(username="bob")
    table = new_table(ann)
    services.table_join(table_id=table.pk, user=bob)
    table.refresh_from_db()
    return table, ann, bob


def hidden_cards(table: Table, *, but: str | None = None) -> set[str]:
    """Every card string a viewer other than ``but`` must not see: hands and the stock."""
    state = table.state
    assert state is not None
    cards = set(state["stock"])
    for player in state["players"]:
        if player["name"] != but:
            cards.update(player["hand"])
    return cards - {"*"}


def test_the_page_embeds_a_seated_players_own_view(client: Client) -> None:
    table, ann, _ = started_table()
    html = logged_in(client, ann).get(f"/tables/{table.pk}/").content.decode()
    payload = payload_of(html)
    view = payload["view"]
    assert payload["id"] == table.pk and payload["status"] == "playing"
    assert view["you"] == "ann"
    assert view["players"][0]["hand"] == table.state["players"][0]["hand"]
    assert view["players"][1]["hand"] == 13  # bob's hand: its size only
    assert view["legal"][0] == {"type": "draw", "source": "stock"}
    assert '<script type="module" src="/static/js/table.js">' in html
    for card in hidden_cards(table, but="ann"):
        assert f'"{card}"' not in html, f"{card} of another hand or the stock is in the page"


@pytest.mark.parametrize("who", ["anonymous", "watcher"])
def test_a_spectator_page_carries_no_hidden_card(client: Client, who: str) -> None:
    table, _, _ = started_table()
    if who == "watcher":
        client = logged_in(client, UserFactory(username="cid"))
    html = client.get(f"/tables/{table.pk}/").content.decode()
    view = payload_of(html)["view"]
    assert "you" not in view and "legal" not in view
    assert [p["hand"] for p in view["players"]] == [13, 13]
    for card in hidden_cards(table):
        assert f'"{card}"' not in html, f"{card} is in a spectator's page"
    if who == "anonymous":  # no CSRF token in the page: not even an unquoted card string
        text = re.sub(r'<script id="table-data".*?</script>', "", html, flags=re.S)
        assert not re.search(r'"[0-9A-Z]{1,2}[SHDC]"', text)


def test_a_waiting_table_shows_the_seats_and_the_creators_start_form(client: Client) -> None:
    ann, bob = UserFactory(username="ann"), UserFactory(username="bob")
    table = new_table(ann, seats=3)
    services.table_join(table_id=table.pk, user=bob)
    html = logged_in(client, ann).get(f"/tables/{table.pk}/").content.decode()
    assert "2 of 3 seats taken." in html
    assert "<li>ann</li><li>bob</li>" in html
    assert re.search(r'<form id="start-form"[^>]*action="[^"]+"\s*>', html)  # not hidden
    assert re.search(r'<form id="join-form"[^>]*hidden>', html)
    assert payload_of(html)["view"] is None


def test_an_unknown_table_is_404(client: Client) -> None:
    assert client.get("/tables/999999/").status_code == 404


# --- The turn clock: the time bank in the form, the organizer's buttons on the page --------------


def test_create_form_takes_a_time_bank(client: Client) -> None:
    ann = UserFactory(username="ann")
    logged_in(client, ann).post(LOBBY, form_data(time_bank_seconds=120))
    table = Table.objects.get()
    assert table.time_bank_seconds == 120 and table.overrides["time_bank_seconds"] == 120
    lobby = client.get(LOBBY).content.decode()
    assert "45 seconds per turn, plus a 120-second time bank each" in lobby
    assert "+ 120 s time bank each" in client.get(f"/tables/{table.pk}/").content.decode()


def test_create_form_leaves_the_time_bank_to_the_rule_set_or_refuses_one(client: Client) -> None:
    ann = UserFactory(username="ann")
    response = logged_in(client, ann).post(LOBBY, form_data(time_bank_seconds=3601))
    assert response.status_code == 200 and 'class="errorlist' in response.content.decode()
    logged_in(client, ann).post(LOBBY, form_data(time_bank_seconds=""))
    table = Table.objects.get()
    assert "time_bank_seconds" not in table.overrides
    assert table.time_bank_seconds == RuleSet.objects.get(slug="standard").time_bank_seconds


def test_only_an_organizer_gets_the_pause_buttons(client: Client) -> None:
    table, ann, _ = started_table()
    html = logged_in(client, ann).get(f"/tables/{table.pk}/").content.decode()
    assert 'data-manage="false"' in html and 'id="clock-controls"' not in html
    assert 'id="back"' in html  # hidden until table.js finds the player absent
    tess = UserFactory(username="tess", is_staff=True)
    html = logged_in(client, tess).get(f"/tables/{table.pk}/").content.decode()
    assert 'data-manage="true"' in html and 'id="clock-controls"' in html
    assert f'data-pause-url="/api/tables/{table.pk}/pause/"' in html
    assert f'data-resume-url="/api/tables/{table.pk}/resume/"' in html
    assert re.search(r'data-csrf="\w+"', html)
