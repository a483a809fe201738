"""Settings entry point: `DJANGO_ENV=production` selects the production module.

Everything else (embedded or full mode) is decided inside `base` from the environment.
"""

import os

if os.environ.get("DJANGO_ENV", "").strip().lower() == "production":
    from .production import *
else:
    from .development import *
