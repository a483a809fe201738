"""The leaderboard page and its CSV export: pools, filters, the hidden provisional players, the
search that jumps to a player's page, pagination, streaming, and the refusals."""

from __future__ import annotations

import csv
import io
import re
from datetime import timedelta

import pytest
from asgiref.sync import sync_to_async
from django.db import connection, connections
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from accounts.models import User
from ratings import exports
from tests.accounts.factories import ClubFactory, UserFactory
from tests.ratings.games import finished_game, rate
from tests.ratings.rating_rows import many_players, pool_of, put_ratings

pytestmark = pytest.mark.django_db

BOARD = "/leaderboard/"
CSV = "/leaderboard.csv"


def page(client: Client, query: str = "") -> str:
    response = client.get(BOARD + query)
    assert response.status_code == 200, response.content.decode()
    return response.content.decode()


def listed(html: str) -> list[tuple[int, str]]:
    """``(rank, username)`` of the board's rows, in order."""
    rows = re.findall(r"<td>(\d+)</td>\s*<th scope=\"row\">\s*<a href=\"/players/([^/]+)/\"", html)
    return [(int(rank), name) for rank, name in rows]


def found_row(html: str) -> str | None:
    """The username of the highlighted row, if any."""
    hit = re.search(r'<tr id="found"[^>]*>.*?<a href="/players/([^/]+)/"', html, re.S)
    return hit.group(1) if hit else None


def csv_of(response: object) -> list[list[str]]:
    body = b"".join(response.streaming_content).decode()  # type: ignore[attr-defined]
    return list(csv.reader(io.StringIO(body)))


@pytest.fixture
def mixed() -> dict[str, User]:
    """ann 1700 (40 games), bob 1650 (5 games: provisional), cid 1600 (20), dan 1600 (25)."""
    users = {name: UserFactory(username=name) for name in ("ann", "bob", "cid", "dan")}
    put_ratings(
        pool_of(),
        [
            (users["ann"], 1700.4, 40),
            (users["bob"], 1650.0, 5),
            (users["cid"], 1600.0, 20),
            (users["dan"], 1600.0, 25),
        ],
    )
    return users


# --- The page: pools and filters ----------------------------------------------------------------


def test_provisional_players_are_hidden_by_default_and_shown_on_request(
    client: Client, mixed: dict[str, User]
) -> None:
    html = page(client)
    assert listed(html) == [(1, "ann"), (2, "cid"), (2, "dan")]  # equal ratings share a rank
    assert "3 players" in html
    shown = page(client, "?provisional=1")
    assert listed(shown) == [(1, "ann"), (2, "bob"), (3, "cid"), (3, "dan")]
    # A provisional rating carries lichess's "?", its deviation in the title.
    assert re.search(
        r'bob</a>\s*</th>\s*<td class="rating" title="deviation ±250">1650'
        r'<abbr class="provisional" title="provisional: deviation ±250">\?</abbr></td>',
        shown,
    )
    assert '<td class="rating" title="deviation ±100">1700</td>' in shown  # ann: settled
    assert 'name="provisional" value="1" checked' in shown
    assert 'name="provisional" value="1" checked' not in html


def test_ratings_are_whole_points_and_names_link_to_profiles(
    client: Client, mixed: dict[str, User]
) -> None:
    html = page(client)
    assert '<td class="rating" title="deviation ±100">1700</td>' in html and "1700.4" not in html
    assert 'href="/players/ann/"' in html
    assert 'href="/leaderboard/"' in html  # the site's navigation


def test_the_pool_select_lists_every_pool_and_switches_the_board(client: Client) -> None:
    ann, bob, cid = (UserFactory(username=n) for n in ("ann", "bob", "cid"))
    club = ClubFactory(name="Thursday Club", slug="thursday")
    rate(finished_game([(ann, 1), (bob, 2)], ruleset="no-jokers"))
    rate(finished_game([(cid, 1), (ann, 2)], club=club))

    everyone = page(client)
    for key in ("global", "ruleset:standard", "ruleset:no-jokers", "club:thursday"):
        assert f'<option value="{key}"' in everyone
    assert '<option value="global" selected>Everyone</option>' in everyone
    assert {n for _, n in listed(page(client, "?provisional=1"))} == {"ann", "bob", "cid"}

    preset = page(client, "?pool=ruleset:no-jokers&provisional=1")
    assert [n for _, n in listed(preset)] == ["ann", "bob"]
    assert '<option value="ruleset:no-jokers" selected>' in preset
    club_board = page(client, "?pool=club:thursday&provisional=1")
    assert [n for _, n in listed(club_board)] == ["cid", "ann"]
    assert "Thursday Club" in club_board
    empty = page(client, "?pool=ruleset:five-ten-fifteen")
    assert "Nobody has a rated game in this pool yet." in empty


def test_this_month_and_minimum_games(client: Client, mixed: dict[str, User]) -> None:
    old = UserFactory(username="old")
    put_ratings(pool_of(), [(old, 1800.0, 50)], at=timezone.now() - timedelta(days=70))
    assert [n for _, n in listed(page(client))] == ["old", "ann", "cid", "dan"]
    month = page(client, "?period=month")
    assert [n for _, n in listed(month)] == ["ann", "cid", "dan"]
    assert "Games this month" in month
    assert [n for _, n in listed(page(client, "?min_games=30"))] == ["old", "ann"]
    nobody = page(client, "?min_games=1000")
    assert "No player matches these filters." in nobody


# --- Pagination and the search ------------------------------------------------------------------


def test_fifty_rows_a_page_with_numbered_page_links(client: Client) -> None:
    many_players(120, pool_of())
    first = page(client)
    assert listed(first)[0] == (1, "p000") and len(listed(first)) == 50
    assert "120 players · page 1 of 3" in first
    assert 'href="?pool=global&amp;page=2"' in first
    assert 'href="?pool=global&amp;page=1" aria-current="page"' in first
    second = page(client, "?page=2")
    assert listed(second)[0] == (51, "p050") and listed(second)[-1] == (100, "p099")
    last = page(client, "?page=3")
    assert listed(last)[-1] == (120, "p119") and len(listed(last)) == 20
    # Past the end: the last page rather than an empty one.
    assert listed(page(client, "?page=99")) == listed(last)


def test_page_links_skip_the_middle_of_a_long_board(client: Client) -> None:
    many_players(600, pool_of(), step=1.0)
    html = page(client, "?page=6")
    numbers = re.findall(r'<li><a href="\?pool=global&amp;page=(\d+)"', html)
    assert numbers == ["1", "4", "5", "6", "7", "8", "12"]
    assert html.count('<li aria-hidden="true">…</li>') == 2


def test_the_search_jumps_to_the_page_holding_the_player_and_marks_their_row(
    client: Client,
) -> None:
    many_players(120, pool_of())
    html = page(client, "?player=p075")
    assert "page 2 of 3" in html
    assert found_row(html) == "p075"
    assert 'id="found" class="found" aria-current="true"' in html
    assert 'value="p075"' in html  # the search box keeps the query
    # The search form keeps the board's filters and lands on the marked row.
    assert 'action="/leaderboard/#found"' in html


def test_the_search_takes_a_unique_prefix_in_any_case_and_offers_several(client: Client) -> None:
    users = [UserFactory(username=n) for n in ("Annabel", "bob", "bobby")]
    put_ratings(pool_of(), [(u, 1600.0 - i, 30) for i, u in enumerate(users)])
    assert found_row(page(client, "?player=anna")) == "Annabel"
    several = page(client, "?player=bo")
    assert found_row(several) is None
    assert "Several players on this board have a name starting with “bo”" in several
    assert 'href="?pool=global&amp;player=bob#found"' in several
    assert found_row(page(client, "?player=bob")) == "bob"  # exact beats prefix


def test_the_search_says_why_a_player_is_not_on_the_board(
    client: Client, mixed: dict[str, User]
) -> None:
    UserFactory(username="eve")
    assert "No player is called “nobody”." in page(client, "?player=nobody")
    assert "eve has no rated game in this pool (Everyone)." in page(client, "?player=eve")
    hidden = page(client, "?player=bob")
    assert "bob is provisional in this pool (rating 1650, deviation 250, above 150)" in hidden
    assert found_row(hidden) is None
    assert found_row(page(client, "?player=bob&provisional=1")) == "bob"
    filtered = page(client, "?player=cid&min_games=30")
    assert "cid is not on this board with these filters" in filtered
    # Another case or width of a name is that player's (issue 20: one comparison everywhere).
    assert "bob is provisional in this pool" in page(client, "?player=\uff22OB")
    assert "eve has no rated game in this pool" in page(client, "?player=EVE")


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ("?period=week", "period: must be all or month"),
        ("?min_games=lots", "min_games: must be a whole number"),
        ("?min_games=-1", "min_games: must be from 0 to 1000000"),
        ("?provisional=maybe", "provisional: must be true or false"),
        ("?page=0", "page: must be from 1 to"),
        ("?page=two", "page: must be a whole number"),
    ],
)
def test_bad_parameters_give_a_400_page_that_says_why(
    client: Client, query: str, message: str
) -> None:
    response = client.get(BOARD + query)
    assert response.status_code == 400
    html = response.content.decode()
    assert "Bad request" in html and message in html


@pytest.mark.parametrize("pool", ["club:nope", "ruleset:nope", "ruleset:", "everyone", "global:x"])
def test_an_unknown_pool_is_a_404_page(client: Client, pool: str) -> None:
    response = client.get(BOARD, {"pool": pool})
    assert response.status_code == 404
    assert "Not found" in response.content.decode()
    assert client.get(CSV, {"pool": pool}).status_code == 404


# --- The CSV export -----------------------------------------------------------------------------


def test_the_csv_is_the_whole_filtered_board(client: Client, mixed: dict[str, User]) -> None:
    many_players(60, pool_of(), top=1500.0)
    response = client.get(CSV + "?provisional=1")
    assert response.status_code == 200
    assert response.streaming
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    assert response["Content-Disposition"] == 'attachment; filename="leaderboard-global-all.csv"'
    rows = csv_of(response)
    assert rows[0] == ["rank", "username", "rating", "games", "provisional", "deviation"]
    assert rows[1:5] == [
        ["1", "ann", "1700.4", "40", "false", "100.0"],
        ["2", "bob", "1650.0", "5", "true", "250.0"],
        ["3", "cid", "1600.0", "20", "false", "100.0"],
        ["3", "dan", "1600.0", "25", "false", "100.0"],
    ]
    assert len(rows) == 1 + 64 and rows[-1][:2] == ["64", "p059"]
    # Without provisional players, as on the page.
    assert [r[1] for r in csv_of(client.get(CSV))[1:4]] == ["ann", "cid", "dan"]


def test_the_page_links_the_csv_with_its_filters(client: Client, mixed: dict[str, User]) -> None:
    html = page(client, "?period=month&min_games=3&provisional=1")
    assert (
        'href="/leaderboard.csv?pool=global&amp;period=month&amp;min_games=3&amp;provisional=1"'
        in html
    )


def test_the_csv_is_read_in_chunks_as_it_is_sent(
    client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Nothing is read before the body is: each chunk is one query, made as it is needed."""
    many_players(95, pool_of(), step=0.0)  # all tied: chunks must carry on by user id
    monkeypatch.setattr(exports, "CHUNK", 10)
    with CaptureQueriesContext(connection) as queries:
        response = client.get(CSV)
        body = iter(response.streaming_content)  # type: ignore[attr-defined]
        before = len(queries)
        assert next(body).startswith(b"rank,")
        assert next(body).count(b"\r\n") == 10
        assert len(queries) == before + 1  # one chunk read so far
        rest = b"".join(body).decode().splitlines()
    assert len(queries) == before + 10  # ten chunks, the last one short
    assert len(rest) == 85
    assert rest[-1] == "1,p094,2000.0,30,false,100.0"  # one rank for all, every player once


def test_a_month_board_counts_the_month_s_games(client: Client) -> None:
    ann, bob = UserFactory(username="ann"), UserFactory(username="bob")
    for _ in range(3):
        rate(finished_game([(ann, 1), (bob, 2)]))
    rows = csv_of(client.get(CSV + "?period=month&provisional=1"))
    assert [r[1] for r in rows[1:]] == ["ann", "bob"] and rows[1][3] == "3"
    assert client.get(CSV + "?period=month")["Content-Disposition"].endswith('-month.csv"')


def test_a_name_a_spreadsheet_would_run_is_written_as_text(client: Client) -> None:
    put_ratings(pool_of(), [(UserFactory(username="=cmd"), 1600.0, 30)])
    assert csv_of(client.get(CSV))[1][1] == "'=cmd"


def test_a_bad_csv_query_is_a_plain_400(client: Client) -> None:
    response = client.get(CSV + "?min_games=x")
    assert response.status_code == 400
    assert response["Content-Type"].startswith("text/plain")
    assert response.content == b"min_games: must be a whole number\n"


@pytest.mark.django_db(transaction=True)
async def test_under_asgi_the_csv_streams_from_an_async_iterator(
    async_client: object, recwarn: pytest.WarningsRecorder
) -> None:
    await sync_to_async(lambda: many_players(30, pool_of()))()
    try:
        response = await async_client.get(CSV)  # type: ignore[attr-defined]
        assert response.status_code == 200 and response.is_async
        body = b"".join([part async for part in response.streaming_content])
    finally:
        # The chunks' queries ran in a worker thread whose connection would otherwise still
        # hold the test database when pytest drops it.
        await sync_to_async(connections.close_all)()
    assert body.decode().splitlines()[30] == "30,p029,1927.5,30,false,100.0"
    assert not [w for w in recwarn if "consume" in str(w.message)]
