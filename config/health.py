"""Health endpoints (mounted at /health/)."""

urlpatterns: list = []
