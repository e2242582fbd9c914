"""Gunicorn settings of the web process: `gunicorn -c deploy/gunicorn.conf.py config.wsgi`.

Every value can be changed from the environment (deploy/.env.example). Scoring never runs
in the web process when a broker is configured, so requests stay short: an upload is
received, given its cheap checks and stored; the scoring worker reads it against the keys.
"""

import multiprocessing
import os

# A web process keeps its database connection between requests (status polls come every few
# seconds during a deadline): without it each request starts a PostgreSQL server process.
# DATABASE_CONN_MAX_AGE from the environment wins (0 turns it off).
os.environ.setdefault("DATABASE_CONN_MAX_AGE", "60")

bind = os.environ.get("GUNICORN_BIND", "0.0.0.0:8000")
workers = int(os.environ.get("GUNICORN_WORKERS", 2 * multiprocessing.cpu_count() + 1))
# sync: one request per worker process. Behind deploy/nginx.conf (request buffering on) a
# slow upload's transfer is nginx's; gunicorn reads the whole body at once from it. Without a
# buffering proxy, GUNICORN_WORKER_CLASS=gthread with GUNICORN_THREADS=4 lets a slow
# transfer hold a thread, not a process (docs/deploy.md, "Uploads and web workers").
worker_class = os.environ.get("GUNICORN_WORKER_CLASS", "sync")
threads = int(os.environ.get("GUNICORN_THREADS", 1))
timeout = int(os.environ.get("GUNICORN_TIMEOUT", 120))
graceful_timeout = 30
keepalive = 5
# Recycle workers now and then, so a slow leak cannot grow without bound.
max_requests = int(os.environ.get("GUNICORN_MAX_REQUESTS", 2000))
max_requests_jitter = 200
worker_tmp_dir = "/dev/shm" if os.path.isdir("/dev/shm") else None
# nginx in front sets X-Forwarded-*; trust it only from the addresses named here.
forwarded_allow_ips = os.environ.get("FORWARDED_ALLOW_IPS", "127.0.0.1")
accesslog = "-"
errorlog = "-"
loglevel = os.environ.get("GUNICORN_LOG_LEVEL", "info")
