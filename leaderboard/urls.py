"""HTML pages of the leaderboard app."""

urlpatterns: list = []
