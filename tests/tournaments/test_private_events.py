"""A draft is its organizers' only, and so is a draft cancelled before its registration opened:
it was never public, so calling it off does not publish its name, settings and description. An
event cancelled once public stays public. And the migration that brought ``published_at`` in."""

from __future__ import annotations

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.test import Client

from accounts.models import Club, ClubMembership, User
from games.models import RuleSet
from tests.tournaments.factories import make_event, users
from tournaments.models import Tournament
from tournaments.selectors import clubs_with_events, drafts_for, event_get
from tournaments.services import event_cancel, event_open_registration

pytestmark = pytest.mark.django_db


def listed(client: Client, status: str = "finished") -> list[str]:
    return [e["name"] for e in client.get(f"/api/events/?status={status}").json()]


def as_user(user: User | None = None) -> Client:
    client = Client()
    if user is not None:
        client.force_login(user)
    return client


@pytest.fixture
def events(director: User, club: Club) -> dict[str, Tournament]:
    """``quiet``: cancelled as a draft; ``called_off``: cancelled with registration open."""
    quiet = make_event(director, status="cancelled", name="Quiet draft", club=club)
    called_off = make_event(director, status="registration", name="Called off", club=club)
    event_cancel(event_id=called_off.pk, actor=director, reason="snow")
    return {"quiet": Tournament.objects.get(pk=quiet.pk), "called_off": called_off}


def test_opening_registration_publishes_the_event_once(director: User) -> None:
    event = make_event(director)
    assert event.published_at is None and event.private
    event_open_registration(event_id=event.pk, actor=director)
    event.refresh_from_db()
    assert event.published_at is not None and not event.private
    event_cancel(event_id=event.pk, actor=director)
    event.refresh_from_db()
    assert event.status == "cancelled" and not event.private


def test_a_cancelled_draft_stays_private(
    director: User, club: Club, events: dict[str, Tournament]
) -> None:
    quiet = events["quiet"]
    assert quiet.status == "cancelled" and quiet.published_at is None and quiet.private
    (ann,) = users("ann")
    for viewer in (None, ann):
        assert listed(as_user(viewer)) == ["Called off"]
        html = as_user(viewer).get("/events/").content.decode()
        assert "Called off" in html and "Quiet draft" not in html
        assert as_user(viewer).get(f"/events/{quiet.slug}/").status_code == 404
        assert as_user(viewer).get(f"/api/events/{quiet.slug}/").status_code == 404
    called_off = events["called_off"]
    assert as_user().get(f"/events/{called_off.slug}/").status_code == 200


def test_its_organizers_still_find_it_among_their_drafts(
    director: User, club: Club, events: dict[str, Tournament]
) -> None:
    quiet = events["quiet"]
    (keeper,) = users("keeper")
    ClubMembership.objects.create(club=club, user=keeper, role="admin")
    for organizer in (director, keeper):
        assert [e.name for e in drafts_for(organizer)] == ["Quiet draft"]
        assert event_get(quiet.slug, organizer) == quiet
        html = as_user(organizer).get("/events/").content.decode()
        assert "Drafts you organize" in html and "Quiet draft" in html
        assert as_user(organizer).get(f"/api/events/{quiet.slug}/").status_code == 200


def test_a_club_with_only_private_events_is_not_a_filter(director: User) -> None:
    spades = Club.objects.create(name="Spades", slug="spades")
    hearts = Club.objects.create(name="Hearts and more", slug="hearts-more")
    make_event(director, name="Spades draft", club=spades)
    make_event(director, status="cancelled", name="Spades cancelled draft", club=spades)
    make_event(director, status="registration", name="Hearts open", club=hearts)
    assert list(clubs_with_events()) == [hearts]


@pytest.mark.django_db(transaction=True)
def test_the_migration_publishes_every_event_but_a_cancelled_draft(director: User) -> None:
    """Before ``published_at``: an event's registration opened at its audit log's
    ``registration`` row; a cancelled one without that row was cancelled as a draft."""
    before, after = [("tournaments", "0001_events")], [("tournaments", "0002_published_at")]
    executor = MigrationExecutor(connection)
    executor.migrate(before)
    apps = executor.loader.project_state(before).apps
    Event = apps.get_model("tournaments", "Tournament")
    Audit = apps.get_model("tournaments", "AuditEntry")
    ruleset = RuleSet.objects.get(slug="standard").pk
    common = {"created_by_id": director.pk, "format": "single_elimination", "ruleset_id": ruleset}

    def event(slug: str, status: str) -> int:
        return int(Event.objects.create(name=slug, slug=slug, status=status, **common).pk)

    draft, quiet = event("draft", "draft"), event("quiet", "cancelled")
    called_off, running = event("called-off", "cancelled"), event("running", "running")
    by = director.pk
    row = Audit.objects.create(tournament_id=called_off, actor_id=by, action="registration")
    Audit.objects.create(tournament_id=quiet, actor_id=by, action="cancelled")
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(after)
    published = dict(Tournament.objects.values_list("pk", "published_at"))
    # Back to the latest migrations, as the test found the database: later migrations exist,
    # and a test after this one (a dump's ``migrate --check``) must find them applied.
    executor.loader.build_graph()
    executor.migrate(executor.loader.graph.leaf_nodes())
    assert published[draft] is None and published[quiet] is None
    assert published[called_off] == row.created_at
    assert published[running] == Tournament.objects.get(pk=running).created_at
