from django.apps import AppConfig


class LeaderboardConfig(AppConfig):
    name = "leaderboard"

    def ready(self) -> None:
        from competition.standings import standings_provider_set
        from leaderboard.standings import run_standings

        standings_provider_set(run_standings)
