"""Quick play's refusals: ``PoolError`` (a ``config.errors.ServiceError``) and its codes."""

from __future__ import annotations

from config.errors import BAD_REQUEST, ServiceError

NOT_OFFERED = "not_offered"
ALREADY_SEATED = "already_seated"

__all__ = ["ALREADY_SEATED", "BAD_REQUEST", "NOT_OFFERED", "PoolError"]


class PoolError(ServiceError):
    """A refused call to a pool service."""
