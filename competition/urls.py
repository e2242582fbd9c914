"""Pages of the competition app."""

app_name = "competition"
urlpatterns: list = []
