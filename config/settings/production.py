"""Production settings: the base settings, hardened. Selected by `DJANGO_ENV=production`.

The secret key and allowed hosts must come from the environment; nothing falls back to a local
file. With them set, `python manage.py check --deploy` reports no warning.
"""

from .base import *

# Never on here, whatever DJANGO_DEBUG says: a stray variable must not expose tracebacks and
# settings to the internet. Debug a deployment with the development settings instead.
DEBUG = False
WHITENOISE_AUTOREFRESH = False
# Or from the file DJANGO_SECRET_KEY_FILE names (a compose or Docker secret).
SECRET_KEY = env_or_file("DJANGO_SECRET_KEY")
ALLOWED_HOSTS = env.list("DJANGO_ALLOWED_HOSTS")

# TLS ends at the load balancer; it must set X-Forwarded-Proto for the redirect to work.
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_SSL_REDIRECT = env.bool("DJANGO_SECURE_SSL_REDIRECT", default=True)
# The container health probe and the metrics scraper speak plain HTTP from inside the network.
SECURE_REDIRECT_EXEMPT = [r"^healthz$", r"^metrics$"]
SECURE_HSTS_SECONDS = env.int("DJANGO_SECURE_HSTS_SECONDS", default=60 * 60 * 24 * 365)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env.bool("DJANGO_SECURE_HSTS_INCLUDE_SUBDOMAINS", default=True)
SECURE_HSTS_PRELOAD = env.bool("DJANGO_SECURE_HSTS_PRELOAD", default=True)
SESSION_COOKIE_SECURE = True
CSRF_COOKIE_SECURE = True
# Django's defaults, pinned: scripts never read the session cookie, and other sites' forms and
# subresource requests never carry it.
SESSION_COOKIE_HTTPONLY = True
# No script of ours reads the CSRF cookie (pages carry the token in the form or a data
# attribute, the API docs in their template), so scripts are not let read it either.
CSRF_COOKIE_HTTPONLY = True
SESSION_COOKIE_SAMESITE = "Lax"
CSRF_COOKIE_SAMESITE = "Lax"

# A deployment sends its emails, even on the embedded database: SMTP from the environment
# unless EMAIL_URL names the mailer (check --deploy refuses the console's, mail.E001).
if not EMAIL_URL:
    MAILERS = {"default": smtp_mailer_from_env()}

# JSON lines on standard output unless LOG_FORMAT and LOG_STREAM say otherwise (config/logs.py).
LOG_FORMAT = env("LOG_FORMAT", default="json")
LOG_STREAM = env("LOG_STREAM", default="stdout")
LOGGING = logging_config(
    fmt=LOG_FORMAT, level=LOG_LEVEL, periodic_tasks=PERIODIC_TASKS, stream=LOG_STREAM
)

# Filled by `collectstatic` when the image is built (Dockerfile).
STATIC_ROOT = env("DJANGO_STATIC_ROOT", default=str(BASE_DIR / "staticfiles"))
WHITENOISE_USE_FINDERS = False
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"},
}
