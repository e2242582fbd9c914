from django.db import migrations


class Migration(migrations.Migration):
    """Joins the two 0012 migrations main holds (definition jobs, scoring parts)."""

    dependencies = [
        ("competition", "0012_definition_jobs"),
        ("competition", "0012_scoring_parts"),
    ]

    operations = []
