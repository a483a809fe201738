"""Log-in throttling (accounts.login_guard) on the log-in page and the token call: failed
attempts counted per client address and per username in the cache, refused past the limit until
the window ends. Time is the test's (``timezone.now`` frozen), never slept through."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from rest_framework.test import APIClient

from tests.accounts.factories import PASSWORD, UserFactory
from tests.games.clocks import FakeTime, freeze

pytestmark = pytest.mark.django_db

LOGIN = "/accounts/login/"
WINDOW = 900
PER_ADDRESS = 5
PER_USERNAME = 3


@pytest.fixture(autouse=True)
def limits(settings: Any) -> None:
    settings.LOGIN_FAILURE_WINDOW = WINDOW
    settings.LOGIN_FAILURES_PER_ADDRESS = PER_ADDRESS
    settings.LOGIN_FAILURES_PER_USERNAME = PER_USERNAME


@pytest.fixture
def now(monkeypatch: pytest.MonkeyPatch) -> FakeTime:
    clock = freeze(monkeypatch)
    clock.advance(seconds=WINDOW - clock.now.timestamp() % WINDOW)  # a window's start
    return clock


@pytest.fixture
def ann() -> Any:
    return UserFactory(username="ann")


def log_in(username: str, password: str, address: str = "10.0.0.1") -> Any:
    """One attempt on the log-in page from ``address``, in a fresh browser."""
    return Client(REMOTE_ADDR=address).post(LOGIN, {"username": username, "password": password})


def test_a_username_is_locked_after_its_failures_from_any_address(ann: Any, now: FakeTime) -> None:
    for n in range(PER_USERNAME):
        assert log_in("ann", "wrong", f"10.0.0.{n}").status_code == 200
    locked = log_in("ANN", PASSWORD, "10.0.9.9")  # the right password, case aside, elsewhere
    assert locked.status_code == 429
    assert "Too many failed log-ins. Try again in 15 minutes." in locked.content.decode()
    assert int(locked["Retry-After"]) == WINDOW
    assert "_auth_user_id" not in locked.wsgi_request.session
    # Another player, from another address, still gets in.
    UserFactory(username="bob")
    assert log_in("bob", PASSWORD, "10.0.9.9").status_code == 302


def test_an_address_is_locked_after_its_failures_on_any_username(ann: Any, now: FakeTime) -> None:
    for n in range(PER_ADDRESS):
        assert log_in(f"guess{n}", "wrong").status_code == 200
    assert log_in("ann", PASSWORD).status_code == 429
    assert log_in("ann", PASSWORD, "10.0.0.2").status_code == 302


def test_the_count_ends_with_its_window(ann: Any, now: FakeTime) -> None:
    for _ in range(PER_USERNAME):
        log_in("ann", "wrong")
    now.advance(seconds=WINDOW - 60)
    locked = log_in("ann", PASSWORD)
    assert locked.status_code == 429
    assert int(locked["Retry-After"]) == 60
    assert "Try again in 1 minute." in locked.content.decode()
    now.advance(seconds=60)
    assert log_in("ann", PASSWORD).status_code == 302


def test_a_right_password_clears_the_usernames_count(ann: Any, now: FakeTime) -> None:
    for _ in range(PER_USERNAME - 1):
        log_in("ann", "wrong", "10.0.0.1")
    assert log_in("ann", PASSWORD, "10.0.0.2").status_code == 302
    for _ in range(PER_USERNAME - 1):
        assert log_in("ann", "wrong", "10.0.0.3").status_code == 200
    assert log_in("ann", PASSWORD, "10.0.0.4").status_code == 302


def test_the_token_call_shares_the_counts(ann: Any, now: FakeTime) -> None:
    """Guessing cannot move from the page to the API, or back."""
    api = APIClient(REMOTE_ADDR="10.0.5.5")
    wrong = {"username": "ann", "password": "wrong"}
    assert api.post("/api/auth/token/", wrong, format="json").status_code == 401
    for _ in range(PER_USERNAME - 1):
        log_in("ann", "wrong")
    refused = api.post("/api/auth/token/", {**wrong, "password": PASSWORD}, format="json")
    assert refused.status_code == 429
    assert refused.json()["error"] == "throttled"
    assert refused.json()["retry_after"] == WINDOW
    assert log_in("ann", PASSWORD).status_code == 429


def test_a_client_cannot_pick_its_address_with_forwarded_for(ann: Any, now: FakeTime) -> None:
    for n in range(PER_ADDRESS):
        Client(HTTP_X_FORWARDED_FOR=f"10.1.0.{n}").post(
            LOGIN, {"username": f"u{n}", "password": "x"}
        )
    assert log_in("ann", PASSWORD, "127.0.0.1").status_code == 429


FULLWIDTH_N = "\uff4e"


@pytest.fixture
def victim() -> Any:
    return UserFactory(username="nfkc_victim", is_staff=True, is_superuser=True)


def lock_out(username: str) -> None:
    for n in range(PER_USERNAME):
        assert log_in(username, "wrong", f"10.0.1.{n}").status_code == 200


@pytest.mark.parametrize("locked_as", ["nfkc_victim", f"{FULLWIDTH_N}fkc_victim", "NFKC_Victim"])
def test_no_spelling_of_a_locked_name_gets_more_guesses(
    victim: Any, now: FakeTime, locked_as: str
) -> None:
    """The finding: a fullwidth ``n`` got five more guesses once ``nfkc_victim`` was locked. The
    guard counts the canonical key, the key log-ins find the account by, on every door."""
    lock_out(locked_as)
    body = {"username": f"{FULLWIDTH_N}fkc_victim", "password": PASSWORD}
    page = Client(REMOTE_ADDR="10.0.9.1").post(LOGIN, body)
    assert page.status_code == 429
    assert "Too many failed log-ins. Try again in 15 minutes." in page.content.decode()
    api = APIClient(REMOTE_ADDR="10.0.9.2").post("/api/auth/token/", body, format="json")
    assert api.status_code == 429
    assert api.json()["error"] == "throttled"
    admin = Client(REMOTE_ADDR="10.0.9.3").post("/admin/login/", {**body, "next": "/admin/"})
    assert admin.status_code == 429
    assert "Too many failed log-ins. Try again in 15 minutes." in admin.content.decode()
    assert "_auth_user_id" not in admin.wsgi_request.session


def test_the_admin_log_in_locks_after_the_limit(victim: Any, now: FakeTime) -> None:
    """``/admin/login/`` checked passwords without limit; its failures now count like the others."""
    admin = Client(REMOTE_ADDR="10.0.2.1")
    for _ in range(PER_USERNAME):
        wrong = admin.post("/admin/login/", {"username": "nfkc_victim", "password": "wrong"})
        assert wrong.status_code == 200
    locked = admin.post("/admin/login/", {"username": "nfkc_victim", "password": PASSWORD})
    assert locked.status_code == 429
    assert int(locked["Retry-After"]) == WINDOW
    assert "_auth_user_id" not in locked.wsgi_request.session
    assert log_in("nfkc_victim", PASSWORD, "10.0.2.2").status_code == 429
    now.advance(seconds=WINDOW)
    assert log_in("nfkc_victim", PASSWORD, "10.0.2.2").status_code == 302


def test_the_admin_log_in_counts_against_the_address(ann: Any, now: FakeTime) -> None:
    for n in range(PER_ADDRESS):
        Client(REMOTE_ADDR="10.0.3.1").post("/admin/login/", {"username": f"g{n}", "password": "x"})
    assert log_in("ann", PASSWORD, "10.0.3.1").status_code == 429


def test_a_refused_attempt_is_not_counted(ann: Any, now: FakeTime) -> None:
    """Past the limit no password is checked, so a refused attempt neither counts nor extends."""
    for n in range(PER_ADDRESS):
        log_in(f"guess{n}", "wrong", "10.0.4.1")
    for _ in range(PER_USERNAME):
        assert log_in("ann", "wrong", "10.0.4.1").status_code == 429
    assert log_in("ann", PASSWORD, "10.0.4.2").status_code == 302
