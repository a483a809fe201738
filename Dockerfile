# The image behind compose.yaml's web, worker and beat services.
FROM python:3.13-slim

# The code runs from /app (templates and static files sit beside it), never from an installed
# copy, whichever console script (daphne, celery) starts it: hence PYTHONPATH.
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PYTHONPATH=/app

WORKDIR /app

# Dependencies first, so code changes do not reinstall them: exactly the versions in
# requirements.lock (`make lock` writes it from pyproject.toml), each file checked against its
# hash, nothing resolved at build time. The project itself is not installed: it runs from /app.
COPY requirements.lock ./
RUN pip install --quiet --require-hashes --no-deps -r requirements.lock

COPY . .
# Static files are collected at build time; the key given here exists only for this step.
RUN useradd --system --home /app rummy \
    && DJANGO_ENV=production DJANGO_SECRET_KEY=collectstatic-only DJANGO_ALLOWED_HOSTS=localhost \
       python manage.py collectstatic --noinput \
    && chown -R rummy /app

USER rummy
EXPOSE 8000
# No --proxy-headers: daphne would believe X-Forwarded-For from anyone. The app decides the
# client's address, from TRUSTED_PROXIES only (config/forwarded.py).
# --verbosity 0: no plain-text access log beside the JSON lines (compose's Caddy logs access).
CMD ["daphne", "--verbosity", "0", "-b", "0.0.0.0", "-p", "8000", "config.asgi:application"]
