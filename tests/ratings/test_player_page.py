"""A player's page: their rating in each pool, the history chart, recent games and placements,
from games played to the end through the services and rated by the finalization hook."""

from __future__ import annotations

import math
import re
import xml.etree.ElementTree as ET

import pytest
from django.test import Client

from accounts.models import User
from ratings.charts import whole_number
from ratings.models import Rating, RatingChange
from tests.accounts.factories import ClubFactory, UserFactory
from tests.games.tables import players
from tests.ratings.games import finished_game, rate
from tests.ratings.rating_rows import play_rated

pytestmark = pytest.mark.django_db

SVG = "{http://www.w3.org/2000/svg}"


def page(client: Client, username: str, query: str = "") -> str:
    response = client.get(f"/players/{username}/{query}")
    assert response.status_code == 200, response.content.decode()
    return response.content.decode()


def chart(html: str) -> ET.Element:
    found = re.search(r"<svg .*?</svg>", html, re.S)
    assert found, "the page has no inline SVG chart"
    return ET.fromstring(found.group(0))


def vertices(svg: ET.Element) -> int:
    lines = list(svg.iter(f"{SVG}polyline"))
    return len(lines[0].attrib["points"].split()) if lines else 0


@pytest.fixture
def season() -> dict[str, object]:
    """ann, bob and cid play three rated games; ann and cid one more at their club's table."""
    ann, bob, cid = players("ann", "bob", "cid")
    club = ClubFactory(name="Thursday Club", slug="thursday")
    tables = [play_rated([ann, bob, cid]) for _ in range(3)]
    rate(finished_game([(cid, 1), (ann, 2)], club=club))
    return {"users": (ann, bob, cid), "tables": tables, "club": club}


def test_each_pool_shows_rating_games_peak_rank_and_provisional(
    client: Client, season: dict[str, object]
) -> None:
    html = page(client, "ann")
    ratings = {r.pool.label: r for r in Rating.objects.filter(user__username="ann")}
    assert set(ratings) == {"Everyone", "Standard rules", "Thursday Club"}
    table = html[html.index('class="player-ratings"') :]
    table = table[: table.index("</table>")]
    for label, rating in ratings.items():
        row = re.search(rf">{label}</a></th>(.*?)</tr>", table, re.S)
        assert row, label
        cells = re.findall(r"<td[^>]*>(.*?)</td>", row.group(1), re.S)
        # A handful of games each: provisional, lichess's "?" after the rating.
        deviation = whole_number(rating.deviation)
        assert cells[0] == (
            whole_number(rating.rating) + '<abbr class="provisional" '
            f'title="provisional: deviation ±{deviation}">?</abbr> <span class="deviation" '
            f'title="deviation: how far off the rating may be">±{deviation}</span>'
        )
        assert cells[1] == str(rating.games)
        assert cells[2] == whole_number(rating.peak)
    api_rank = client.get("/api/players/ann/").json()["rank"]
    assert f"#{api_rank}</a>" in table
    assert 'href="/leaderboard/?pool=global&amp;provisional=1&amp;player=ann#found"' in table


def test_the_chart_is_inline_svg_of_the_chosen_pool(
    client: Client, season: dict[str, object]
) -> None:
    html = page(client, "ann")
    assert "<script" not in html.split("<main>")[1]  # drawn by the server, not a library
    svg = chart(html)
    assert svg.find(f"{SVG}title").text == "ann's rating in Everyone"  # type: ignore[union-attr]
    assert vertices(svg) == 1 + 4  # the start, then one point per rated game
    assert '<option value="global" selected>' in html

    club = page(client, "ann", "?pool=club:thursday")
    svg = chart(club)
    assert svg.find(f"{SVG}title").text == "ann's rating in Thursday Club"  # type: ignore[union-attr]
    assert vertices(svg) == 2  # one game: from the start to after it
    assert '<option value="club:thursday" selected>' in club


def test_a_pool_without_games_draws_an_empty_chart(
    client: Client, season: dict[str, object]
) -> None:
    html = page(client, "bob", "?pool=club:thursday")
    assert "No rated games in this pool yet" in html
    assert vertices(chart(html)) == 0


def test_recent_games_link_their_table_and_log_with_place_score_and_change(
    client: Client, season: dict[str, object]
) -> None:
    html = page(client, "bob")
    bob = User.objects.get(username="bob")
    for table in season["tables"]:  # type: ignore[attr-defined]
        assert f'href="/tables/{table.pk}/">Table {table.pk}</a>' in html
        assert f'href="/api/tables/{table.pk}/log/">log</a>' in html
        mine = next(p for p in table.result.placements if p["user"] == bob.pk)
        change = RatingChange.objects.get(table=table, user=bob, pool__kind="global")
        row = re.search(rf"Table {table.pk}</a></th>(.*?)</tr>", html, re.S)
        assert row
        places = {1: "1st", 2: "2nd", 3: "3rd"}
        assert f"<td>{places[mine['place']]} of 3</td>" in row.group(1)
        assert f"<td>{mine['score']}</td>" in row.group(1)
        assert f"<td>{whole_number(change.after)} " in row.group(1)
        delta = math.floor(change.after - change.before + 0.5)
        assert f"({delta:+d})" in row.group(1)


def test_placements_per_table_size(client: Client, season: dict[str, object]) -> None:
    html = page(client, "ann")
    stats = html[html.index('class="placements"') :]
    row = re.search(r'<th scope="row">3</th>(.*?)</tr>', stats, re.S)
    assert row
    cells = re.findall(r"<td>(.*?)</td>", row.group(1))
    wins = RatingChange.objects.filter(user__username="ann", pool__kind="global", place=1).count()
    assert cells[0] == "3" and cells[1] == str(wins)
    assert cells[2] == f"{round(100 * wins / 3)}%"
    club = page(client, "ann", "?pool=club:thursday")
    club_stats = club[club.index('class="placements"') :]
    assert re.search(r'<th scope="row">2</th>\s*<td>1</td>\s*<td>0</td>\s*<td>0%</td>', club_stats)
    assert "2nd 1" in club_stats


def test_an_unrated_game_shows_as_not_rated(client: Client) -> None:
    ann, bob = UserFactory(username="ann"), UserFactory(username="bob")
    finished_game([(ann, 1), (bob, 2)], rated=False)
    html = page(client, "ann")
    assert "not rated" in html
    assert "ann has no rated game yet." in html
    assert "No rated games in this pool yet" in html


def test_a_newcomer_has_empty_sections(client: Client) -> None:
    UserFactory(username="newbie")
    html = page(client, "newbie")
    assert "newbie has no rated game yet." in html
    assert "newbie has not finished a game yet." in html
    assert vertices(chart(html)) == 0


def test_unknown_players_and_pools_are_404_pages(client: Client) -> None:
    UserFactory(username="ann")
    missing = client.get("/players/nobody/")
    assert missing.status_code == 404
    assert "No player is called “nobody”." in missing.content.decode()
    assert client.get("/players/ann/?pool=club:nope").status_code == 404
    assert client.get("/players/ann/?pool=ruleset:standard").status_code == 200
