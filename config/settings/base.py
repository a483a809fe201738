"""Settings shared by every environment, read from the environment (12-factor).

Two ways to run with the same code:
- embedded (nothing set): SQLite file, in-memory channel layer, Celery on an in-memory broker
  whose worker and beat run inside the server process;
- full (`DATABASE_URL` / `REDIS_URL` set): PostgreSQL, channels-redis, Celery on Redis with
  separate `celery worker` and `celery beat` processes.
Each of `DATABASE_URL` and `REDIS_URL` switches its own part, so they can be set one at a time.
"""

from ipaddress import ip_network
from pathlib import Path

import environ
from django.utils.csp import CSP

from config.envfiles import env_or_file, postgres_url
from config.logs import logging_config
from config.sentry import init_sentry

BASE_DIR = Path(__file__).resolve().parent.parent.parent

env = environ.Env()
# A local `.env` file (ignored by git) is read when present; real environment variables win.
if (BASE_DIR / ".env").is_file():
    environ.Env.read_env(BASE_DIR / ".env", overwrite=False)

# Required in production; development.py falls back to a key kept in an ignored local file.
SECRET_KEY = env("DJANGO_SECRET_KEY", default="")
# Off unless asked for (`DJANGO_DEBUG=1`, or `make dev`): debug pages show tracebacks and settings
# to whoever reaches the server, and `make run` may be reachable by more than its owner.
DEBUG = env.bool("DJANGO_DEBUG", default=False)
ALLOWED_HOSTS = env.list("DJANGO_ALLOWED_HOSTS", default=["127.0.0.1", "localhost", "[::1]"])
CSRF_TRUSTED_ORIGINS = env.list("DJANGO_CSRF_TRUSTED_ORIGINS", default=[])

# Each secret below may come from a file instead: NAME_FILE names it (config/envfiles.py). The
# database is one URL or its parts (POSTGRES_HOST, _PORT, _DB, _USER, _PASSWORD), quoted here.
DATABASE_URL = env_or_file("DATABASE_URL", default="") or postgres_url()
REDIS_URL = env_or_file("REDIS_URL", default="")
SERVICE_MODE = "full" if DATABASE_URL or REDIS_URL else "embedded"

INSTALLED_APPS = [
    # daphne first: its `runserver` replaces Django's and speaks WebSocket too.
    "daphne",
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "channels",
    "rest_framework",
    "rest_framework.authtoken",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    # The log-in guard's doors: its backend and signals, with our counting rules
    # (accounts.login_guard).
    "axes",
    "accounts",
    "chat",
    "notifications",
    "games",
    "ratings",
    "tournaments",
    "lobby",
    # Request metrics (its middleware, first and last below); /metrics is config.metrics_view.
    "django_prometheus",
]

MIDDLEWARE = [
    # Times every request, whatever answers it (the last middleware closes the measurement).
    "django_prometheus.middleware.PrometheusBeforeMiddleware",
    # The client's address and scheme, from X-Forwarded-* only when a trusted proxy sent them
    # (TRUSTED_PROXIES below): before the rest, so the HTTPS redirect and every throttle (and
    # /metrics' network check) see the result.
    "config.forwarded.ForwardedMiddleware",
    "django.middleware.security.SecurityMiddleware",
    # Content-Security-Policy on every response (SECURE_CSP below).
    "django.middleware.csp.ContentSecurityPolicyMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    # Every error under /api/ answers JSON, and a missing page the site's 404 page, with DEBUG on
    # as off. Outside the middleware below, so it also sees what they refuse.
    "config.error_pages.ErrorPagesMiddleware",
    # A view that fails because the database is unreachable answers 503, not a traceback.
    "config.unavailable.UnavailableMiddleware",
    # A NUL byte in the path or query string is refused before PostgreSQL sees it (a 500 there).
    "config.nul_bytes.NulBytesMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # Turns a log-in page the guard refused into 429 with Retry-After (accounts.login_guard).
    "axes.middleware.AxesMiddleware",
    "django_prometheus.middleware.PrometheusAfterMiddleware",
]

ROOT_URLCONF = "config.urls"
ASGI_APPLICATION = "config.asgi.application"
AUTH_USER_MODEL = "accounts.User"
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                # {{ csp_nonce }}: the one inline block we serve (the API docs page) carries it.
                "django.template.context_processors.csp",
                # {{ notifications_unread }}: the bell's count in the header.
                "notifications.context_processors.unread",
            ],
        },
    },
]

# --- Content-Security-Policy -------------------------------------------------------------------
# Our pages load scripts, styles and images from this origin only and have no inline code (the
# API docs page's inline blocks carry the request's nonce: templates/drf_spectacular/). Sockets
# and fetches go to this origin ('self' covers ws: and wss: on the same host), no page may be
# framed, and forms post only here. tests/browser/test_csp.py tours the pages for violations.
SECURE_CSP = {
    "default-src": [CSP.SELF],
    "script-src": [CSP.SELF, CSP.NONCE],
    "style-src": [CSP.SELF, CSP.NONCE],
    "img-src": [CSP.SELF, "data:"],
    "connect-src": [CSP.SELF],
    "object-src": [CSP.NONE],
    "base-uri": [CSP.NONE],
    "frame-ancestors": [CSP.NONE],
    "form-action": [CSP.SELF],
}

# --- Database ----------------------------------------------------------------------------------
# On PostgreSQL each process keeps a pool of connections (psycopg_pool, through Django): a
# request or task takes one for its duration and gives it back. Persistent per-thread
# connections (CONN_MAX_AGE) suit a threaded WSGI server with a fixed set of threads; under ASGI
# every request may run in a thread of its own, and one daphne process was seen holding 59 idle
# connections after bursts (PostgreSQL allows 100 in all). The pool holds DB_POOL_MIN_SIZE open,
# opens up to DB_POOL_MAX_SIZE under load, closes those above the minimum after DB_POOL_MAX_IDLE
# idle seconds, and a request that finds every connection busy waits DB_POOL_TIMEOUT seconds
# before it fails (503, as with a database out of reach). That wait is also how long a query
# takes to fail while the database is out of reach, so it is short: a socket's handshake makes
# two such calls (its token, its table) and daphne drops a handshake after 5 s. Budget: max size
# times processes (web servers plus worker processes) stays under max_connections
# (docs/scaling.md).
# DB_POOL=false goes back to persistent connections (DJANGO_CONN_MAX_AGE seconds).
DB_POOL = env.bool("DB_POOL", default=True)
DB_POOL_MIN_SIZE = env.int("DB_POOL_MIN_SIZE", default=2)
DB_POOL_MAX_SIZE = env.int("DB_POOL_MAX_SIZE", default=10)
DB_POOL_TIMEOUT = env.float("DB_POOL_TIMEOUT", default=2.0)
DB_POOL_MAX_IDLE = env.float("DB_POOL_MAX_IDLE", default=60.0)
if DATABASE_URL:
    DATABASES = {"default": env.db_url_config(DATABASE_URL)}
    # Health checks drop dead connections first (a pooled one is checked as it is handed out).
    DATABASES["default"]["CONN_HEALTH_CHECKS"] = True
    DATABASES["default"]["CONN_MAX_AGE"] = env.int("DJANGO_CONN_MAX_AGE", default=60)
    if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
        _options = DATABASES["default"].setdefault("OPTIONS", {})
        # Seconds; without it a vanished server stalls a request (and /healthz) for minutes.
        _options.setdefault("connect_timeout", env.int("DJANGO_DB_CONNECT_TIMEOUT", default=5))
        if DB_POOL:
            # Django refuses a pool beside persistent connections: closing gives back to the pool.
            DATABASES["default"]["CONN_MAX_AGE"] = 0
            _options["pool"] = {
                "min_size": DB_POOL_MIN_SIZE,
                "max_size": DB_POOL_MAX_SIZE,
                "timeout": DB_POOL_TIMEOUT,
                "max_idle": DB_POOL_MAX_IDLE,
                # A connection that fails is retried with a growing backoff until this, then
                # the next request tries afresh: the service recovers as soon as the database
                # answers again (tests/faults/test_database_outage.py), not at the backoff's end.
                "reconnect_timeout": 1.0,
            }
else:
    DATABASES = {
        "default": {
            "ENGINE": "django.db.backends.sqlite3",
            "NAME": env("SQLITE_PATH", default=str(BASE_DIR / "db.sqlite3")),
            "OPTIONS": {
                # SQLite has no row locks, so select_for_update is a no-op there. IMMEDIATE takes
                # the database's write lock when a transaction begins: one writer at a time, as
                # the table row lock gives on PostgreSQL, and no "database is locked" failure
                # when two deferred transactions both try to upgrade from reading to writing.
                "transaction_mode": "IMMEDIATE",
                # Seconds a writer waits for the lock before giving up.
                "timeout": 20,
                # Write-ahead logging: a commit appends to the log instead of writing and
                # deleting a rollback journal with several fsyncs, and readers do not wait for
                # the writer. NORMAL syncs at checkpoints, not at every commit: the database
                # stays whole through a crash, and a power cut may lose the last moments
                # (docs/scaling.md: a commit went from milliseconds of disk waits to none).
                "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
            },
        }
    }

# --- Channel layer and cache ----------------------------------------------------------------------
if REDIS_URL:
    # Redis pub/sub: a group send is one PUBLISH, and each process holds one subscription that
    # it fans out to its own sockets. The list-based core layer costs a BZPOPMIN loop per socket
    # and several commands per group send: measured by bench/tables.py, it took half the
    # server's CPU. Pushes are fire-and-forget either way; a client that misses one resyncs.
    # The backend is channels_redis's pub/sub layer, made to resync every socket after a Redis
    # restart (config/layers.py).
    CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "config.layers.RedisPubSubLayer",
            # Every process of one deployment must share the prefix; two deployments (or two test
            # runs) on one Redis server each need their own, or a push to table 7 of one reaches
            # the sockets on table 7 of the other.
            "CONFIG": {"hosts": [REDIS_URL], "prefix": env("CHANNELS_PREFIX", default="asgi")},
        }
    }
    # Shared across servers, so throttling counts every request whichever server took it. It
    # holds only throttle counters, so it fails open while Redis is out of reach (config/cache.py)
    # and waits at most a second or two for it.
    CACHES = {
        "default": {
            "BACKEND": "config.cache.FailOpenRedisCache",
            "LOCATION": REDIS_URL,
            "OPTIONS": {"socket_connect_timeout": 1, "socket_timeout": 2},
        }
    }
else:
    # One process holds every socket, so an in-memory layer reaches all of them.
    CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}

# --- Celery ------------------------------------------------------------------------------------
CELERY_BROKER_URL = env_or_file("CELERY_BROKER_URL", default=REDIS_URL or "memory://")
CELERY_TASK_IGNORE_RESULT = True
CELERY_TASK_DEFAULT_QUEUE = env("CELERY_QUEUE", default="celery")
# Celery's Django fixup closes the database connection around every task unless this is set:
# a new PostgreSQL connection per turn played. Kept instead, and tidied by Django's own rules
# (CONN_MAX_AGE, health checks) around each task: see config/celery.py.
CELERY_DB_REUSE_MAX = env.int("CELERY_DB_REUSE_MAX", default=1000)
CELERY_TIMEZONE = "UTC"
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# An in-memory broker lives inside one process, so its worker and beat must live there too.
CELERY_WORKER_EMBEDDED = env.bool(
    "CELERY_WORKER_EMBEDDED", default=CELERY_BROKER_URL.startswith("memory://")
)
CELERY_EMBEDDED_CONCURRENCY = env.int("CELERY_EMBEDDED_CONCURRENCY", default=4)
# Redis hands a message that is not acknowledged within this time to another worker. A turn
# timer waits for its deadline unacknowledged, so this must outlast the longest turn (an hour of
# turn clock plus an hour of time bank); a lost timer is the sweep's job anyway.
CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": 3 * 3600}

# --- The turn clock ----------------------------------------------------------------------------
# Every CLOCK_SWEEP_SECONDS the sweep plays each turn whose deadline passed more than
# CLOCK_SWEEP_GRACE_SECONDS ago (its timer was lost), so no turn hangs longer than its deadline
# plus the interval plus the grace. FINALIZE_SETTLE_SECONDS after a game ends, the sweep sends its
# finalization hooks again if they have not run.
CLOCK_SWEEP_SECONDS = env.float("CLOCK_SWEEP_SECONDS", default=2.0)
CLOCK_SWEEP_GRACE_SECONDS = env.float("CLOCK_SWEEP_GRACE_SECONDS", default=0.5)
CLOCK_SWEEP_LIMIT = env.int("CLOCK_SWEEP_LIMIT", default=1000)
FINALIZE_SETTLE_SECONDS = env.float("FINALIZE_SETTLE_SECONDS", default=60.0)
# A hook that fails is tried again by the sweep after FINALIZE_SETTLE_SECONDS, then twice as
# long each time (1, 2, 4, 8 minutes): five attempts span a quarter of an hour, long enough to
# outlast a restart or a brief outage, short enough that the organizers hear of a real fault
# while their event is still on. Then it stops, and they are told (games.finalization).
FINALIZE_MAX_ATTEMPTS = env.int("FINALIZE_MAX_ATTEMPTS", default=5)
# A rematch offer stands this long from its first answer: time to read the result and decide,
# short enough that nobody waits long on a player who has left the page.
REMATCH_SECONDS = env.float("REMATCH_SECONDS", default=60.0)
# Waiting tables (games.waiting): a player sits at this many at most, so one account cannot
# fill the lobby's list of 100 (ten accounts could, and accounts are throttled per address);
# a bot or an organizer testing tables keeps room for several at once. A table not started
# this long after it opened is closed (aborted) by the sweep: half an hour is long for a club
# night's table to find its players.
WAITING_TABLES_PER_PLAYER = env.int("WAITING_TABLES_PER_PLAYER", default=10)
WAITING_TABLE_EXPIRY_SECONDS = env.float("WAITING_TABLE_EXPIRY_SECONDS", default=1800.0)
EVENTS_SCHEDULE_SECONDS = env.float("EVENTS_SCHEDULE_SECONDS", default=15.0)
# Quick play (lobby.tasks): every LOBBY_SWEEP_SECONDS the pools are matched again as rating
# windows widen (5 points a second: a sweep every 3 s moves them 15 points), and a waiter whose
# lobby sockets have all been closed for LOBBY_ABSENT_GRACE_SECONDS leaves (long enough for a
# page reload or a phone's network switch).
LOBBY_SWEEP_SECONDS = env.float("LOBBY_SWEEP_SECONDS", default=3.0)
LOBBY_ABSENT_GRACE_SECONDS = env.float("LOBBY_ABSENT_GRACE_SECONDS", default=30.0)
CELERY_BEAT_SCHEDULE: dict[str, dict[str, object]] = {
    "sweep-overdue-turns": {
        "task": "games.tasks.sweep",
        "schedule": CLOCK_SWEEP_SECONDS,
        # A sweep still queued when the next is due is dropped, not piled up.
        "options": {"expires": CLOCK_SWEEP_SECONDS},
    },
    # Events open registration and check-in, and start, at their times (tournaments.tasks).
    "events-schedule": {
        "task": "tournaments.tasks.run_schedule",
        "schedule": EVENTS_SCHEDULE_SECONDS,
        "options": {"expires": EVENTS_SCHEDULE_SECONDS},
    },
    # Entrants are told their event starts in ten minutes, once each (tournaments.notices).
    "events-starting-soon": {
        "task": "tournaments.tasks.remind_starting",
        "schedule": EVENTS_SCHEDULE_SECONDS,
        "options": {"expires": EVENTS_SCHEDULE_SECONDS},
    },
    # Quick play matches again as waiters' windows widen, and drops the absent (lobby.tasks).
    "lobby-sweep-pools": {
        "task": "lobby.tasks.sweep_pools",
        "schedule": LOBBY_SWEEP_SECONDS,
        "options": {"expires": LOBBY_SWEEP_SECONDS},
    },
}

# --- Email (notifications) ---------------------------------------------------------------------
# Notices are also mailed (by a Celery task, notifications.tasks), through Django's MAILERS.
# Embedded mode prints them on the console; full mode sends by SMTP, set either as one URL
# (EMAIL_URL, django-environ's form: smtp://user:password@host:25, smtp+tls://... for STARTTLS,
# smtp+ssl://... for TLS from the start, consolemail:// to print) or by its parts (EMAIL_HOST,
# EMAIL_PORT, EMAIL_HOST_USER, EMAIL_HOST_PASSWORD, EMAIL_USE_TLS). EMAIL_URL wins when set.
SMTP_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
# Seconds an SMTP call may take before the task fails (it is retried later).
EMAIL_TIMEOUT_SECONDS = env.int("EMAIL_TIMEOUT_SECONDS", default=10)
EMAIL_URL = env_or_file("EMAIL_URL", default="")


def _mailer(url: str) -> dict[str, object]:
    """MAILERS' entry for an email URL (django-environ's parsing, Django 6.1's shape)."""
    parsed = environ.Env.email_url_config(url)
    if parsed["EMAIL_BACKEND"] != SMTP_BACKEND:
        return {"BACKEND": parsed["EMAIL_BACKEND"]}
    return _smtp(
        host=parsed["EMAIL_HOST"] or "localhost",
        port=parsed["EMAIL_PORT"] or 25,
        username=parsed["EMAIL_HOST_USER"] or "",
        password=parsed["EMAIL_HOST_PASSWORD"] or "",
        use_tls=bool(parsed.get("EMAIL_USE_TLS")),
        use_ssl=bool(parsed.get("EMAIL_USE_SSL")),
    )


def _smtp(**options: object) -> dict[str, object]:
    return {"BACKEND": SMTP_BACKEND, "OPTIONS": {**options, "timeout": EMAIL_TIMEOUT_SECONDS}}


def smtp_mailer_from_env() -> dict[str, object]:
    """The SMTP mailer of EMAIL_HOST, EMAIL_PORT, EMAIL_HOST_USER, EMAIL_HOST_PASSWORD and
    EMAIL_USE_TLS (production.py uses it too)."""
    return _smtp(
        host=env("EMAIL_HOST", default="localhost"),
        port=env.int("EMAIL_PORT", default=25),
        username=env("EMAIL_HOST_USER", default=""),
        password=env_or_file("EMAIL_HOST_PASSWORD", default=""),
        use_tls=env.bool("EMAIL_USE_TLS", default=False),
    )


if EMAIL_URL:
    MAILERS = {"default": _mailer(EMAIL_URL)}
elif SERVICE_MODE == "full":
    MAILERS = {"default": smtp_mailer_from_env()}
else:
    MAILERS = {"default": {"BACKEND": "django.core.mail.backends.console.EmailBackend"}}
DEFAULT_FROM_EMAIL = env("DEFAULT_FROM_EMAIL", default="Rummy 500 <noreply@localhost>")
# Where the site is, as its players reach it: emails carry absolute links and a Celery task has
# no request to read the host from.
SITE_URL = env("SITE_URL", default="http://localhost:8000")
# Entrants of an event that starts within this many minutes are told once (tournaments.tasks).
EVENT_REMINDER_MINUTES = env.int("EVENT_REMINDER_MINUTES", default=10)

# --- The edge -----------------------------------------------------------------------------------
# Networks of the reverse proxies in front (compose: Caddy's network), comma-separated. Only a
# request whose connecting address is in one has its X-Forwarded-For and X-Forwarded-Proto
# believed (config/forwarded.py); empty, they are ignored and the connecting address is the client.
TRUSTED_PROXIES = env.list("TRUSTED_PROXIES", default=[])

# --- WebSocket rate limit ------------------------------------------------------------------------
# Every frame a client sends takes a token from its connection's bucket: WS_RATE_BURST at once,
# refilled at WS_RATE_PER_SECOND. A person acts a few times a turn and a bot at its opponents'
# pace, far inside both; a frame over the limit is refused (``rate_limited``), and a socket that
# keeps flooding is closed (config/ws_limit.py).
WS_RATE_BURST = env.int("WS_RATE_BURST", default=20)
WS_RATE_PER_SECOND = env.float("WS_RATE_PER_SECOND", default=10.0)
# On SIGTERM the server closes every socket with 1012 (service restart) and waits this long for
# the closes to complete before it stops (config/restart.py). A close completes within about a
# second (autobahn's close handshake timeout); compose gives a container 10 s to stop.
WS_CLOSE_GRACE_SECONDS = env.float("WS_CLOSE_GRACE_SECONDS", default=5.0)

# --- Auth --------------------------------------------------------------------------------------
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
# Failed log-ins (the log-in page, the admin's log-in and the token call) allowed in each window
# of LOGIN_FAILURE_WINDOW seconds, per client address and per username (accounts.login_guard).
LOGIN_FAILURE_WINDOW = env.int("LOGIN_FAILURE_WINDOW", default=15 * 60)
LOGIN_FAILURES_PER_ADDRESS = env.int("LOGIN_FAILURES_PER_ADDRESS", default=20)
LOGIN_FAILURES_PER_USERNAME = env.int("LOGIN_FAILURES_PER_USERNAME", default=10)
# django-axes refuses a locked log-in in every `authenticate` call, before the password is
# checked; the counting is ours (accounts.login_guard), by the canonical username and the
# address the API throttles read.
AUTHENTICATION_BACKENDS = [
    "accounts.login_guard.GuardBackend",
    "django.contrib.auth.backends.ModelBackend",
]
AXES_HANDLER = "accounts.login_guard.LoginGuard"
AXES_USERNAME_CALLABLE = "accounts.login_guard.axes_username"
AXES_CLIENT_IP_CALLABLE = "accounts.login_guard.client_address"
AXES_LOCKOUT_CALLABLE = "accounts.login_guard.lockout_response"
# What the handler counts by (axes' checks read it; the limits are the LOGIN_FAILURES_* above).
AXES_LOCKOUT_PARAMETERS = ["ip_address", "username"]
# A refused attempt is flagged on the request and not counted (no password was checked).
AXES_RESET_COOL_OFF_ON_FAILURE_DURING_LOCKOUT = False
# Axes' tables and admin pages hold nothing here: the counts are in the cache.
AXES_ENABLE_ADMIN = False
AXES_VERBOSE = False
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "home"

# --- REST API ----------------------------------------------------------------------------------
REST_FRAMEWORK = {
    # Token first: its WWW-Authenticate header lets DRF answer 401 (not 403) to a missing login.
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.TokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    # DRF's JSON parser, refusing a body nested too deeply to read as any other bad body.
    "DEFAULT_PARSER_CLASSES": ["config.parsers.JSONParser"],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "EXCEPTION_HANDLER": "config.exceptions.api_exception_handler",
    "DEFAULT_THROTTLE_RATES": {
        "auth": env("AUTH_THROTTLE_RATE", default="20/min"),
        # New accounts per address, by the API or the sign-up page (config.throttles): enough
        # for a club night's room signing up behind one address (its Wi-Fi), far below the 40
        # in 21 s an attacker scripted; AUTH_THROTTLE_RATE holds the API to 20 a minute too.
        "signup": env("SIGNUP_THROTTLE_RATE", default="100/hour"),
        # Event registrations and withdrawals per player, by the API or the event page.
        "entries": env("ENTRIES_THROTTLE_RATE", default="30/hour"),
    },
    # Throttles key on REMOTE_ADDR, which config.forwarded has already set to the client's
    # address (the one place that reads X-Forwarded-For, and only from TRUSTED_PROXIES): DRF must
    # not read the header a second time.
    "NUM_PROXIES": 0,
}

SPECTACULAR_SETTINGS = {
    "TITLE": "Rummy 500 API",
    "DESCRIPTION": "Tables, actions, ratings and tournaments for Rummy 500. See PROTOCOL.md.",
    "VERSION": "1",
    "SERVE_INCLUDE_SCHEMA": False,
    # Swagger UI from the sidecar package's static files, never from a CDN.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    # Two sets of values are called ``status``: a table's keeps the name it always had.
    "ENUM_NAME_OVERRIDES": {
        "StatusEnum": "games.models.Table.Status",
        "RematchStatusEnum": "games.payloads.REMATCH_STATUSES",
    },
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "config.openapi.document_unsupported_media_type",
    ],
}

# --- Static files and i18n ---------------------------------------------------------------------
STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
# Outside production WhiteNoise serves straight from the apps, with DEBUG on or off, so `make run`
# needs no collectstatic (and there is no STATIC_ROOT to collect into; production sets one). With
# DEBUG off it finds the files once at start; with it on, on every request (edits show at once).
WHITENOISE_USE_FINDERS = True
WHITENOISE_AUTOREFRESH = DEBUG

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

# --- Logs ----------------------------------------------------------------------------------------
# One line per record on stderr (stdout stays for commands' output): JSON objects in production
# (LOG_FORMAT=json, production.py's default), plain text here. Celery's per-run lines of the
# periodic tasks are DEBUG, so an idle service logs next to nothing (config/logs.py).
# DJANGO_LOG_LEVEL is the older name of LOG_LEVEL.
LOG_LEVEL = env("LOG_LEVEL", default=env("DJANGO_LOG_LEVEL", default="INFO")).upper()
LOG_FORMAT = env("LOG_FORMAT", default="text")
LOG_STREAM = env("LOG_STREAM", default="stderr")
PERIODIC_TASKS = sorted({str(entry["task"]) for entry in CELERY_BEAT_SCHEDULE.values()})
LOGGING = logging_config(
    fmt=LOG_FORMAT, level=LOG_LEVEL, periodic_tasks=PERIODIC_TASKS, stream=LOG_STREAM
)

# --- Metrics -------------------------------------------------------------------------------------
# GET /metrics (Prometheus) answers a request with `Authorization: Bearer <METRICS_TOKEN>` or from
# an address in METRICS_ALLOWED_NETWORKS (CIDR list), and is a 404 to anyone else; both are
# empty by default (config/metrics_view.py). The worker serves its own on METRICS_PORT.
METRICS_TOKEN = env("METRICS_TOKEN", default="")
METRICS_ALLOWED_NETWORKS = [
    str(ip_network(net, strict=False)) for net in env.list("METRICS_ALLOWED_NETWORKS", default=[])
]
METRICS_PORT = env.int("METRICS_PORT", default=0)
# django-prometheus's migration gauges would query the database when the app loads.
PROMETHEUS_EXPORT_MIGRATIONS = False

# --- Error reports -------------------------------------------------------------------------------
# Sentry, when SENTRY_DSN is set: web servers, worker and beat all load these settings
# (config/sentry.py). No personal data is sent.
SENTRY_DSN = env("SENTRY_DSN", default="")
init_sentry(
    dsn=SENTRY_DSN,
    environment=env("SENTRY_ENVIRONMENT", default=env("DJANGO_ENV", default="") or "development"),
    release=env("SENTRY_RELEASE", default=None),
    traces_sample_rate=env.float("SENTRY_TRACES_SAMPLE_RATE", default=0.0),
)
