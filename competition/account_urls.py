"""Sign up, log in, log out (mounted at /accounts/)."""

urlpatterns: list = []
