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

# Dependencies first, so code changes do not reinstall them.
COPY pyproject.toml ./
RUN python -c 'import tomllib; print("\n".join(tomllib.load(open("pyproject.toml", "rb"))["project"]["dependencies"]))' \
        > /tmp/requirements.txt \
    && pip install --quiet -r /tmp/requirements.txt

COPY . .
# Static files are collected at build time; the key given here exists only for this step.
RUN useradd --system --home /app rummy \
    && DJANGO_ENV=production DJANGO_SECRET_KEY=collectstatic-only DJANGO_ALLOWED_HOSTS=localhost \
       python manage.py collectstatic --noinput \
    && chown -R rummy /app

USER rummy
EXPOSE 8000
CMD ["daphne", "--proxy-headers", "-b", "0.0.0.0", "-p", "8000", "config.asgi:application"]
