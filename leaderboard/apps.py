from django.apps import AppConfig


class LeaderboardConfig(AppConfig):
    name = "leaderboard"

    def ready(self) -> None:
        from competition.standings import standings_provider_set
        from leaderboard.standings import run_standings

        standings_provider_set(run_standings)

        from competition.services.boards import board_entries_written
        from leaderboard.jobs import board_views_on_scores

        board_entries_written.connect(board_views_on_scores, dispatch_uid="leaderboard.board_views")
