"""WSGI entry point (gunicorn config.wsgi; `manage.py runserver` serves it too)."""

import os

from django.core.wsgi import get_wsgi_application

from config import heap

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
application = get_wsgi_application()
heap.settle()  # long-lived objects out of the collector's sight: a board's p95 (config/heap.py)
