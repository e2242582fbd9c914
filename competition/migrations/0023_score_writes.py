"""The score rows' redundant indexes and constraint go (a run writes some 11,000 rows at
once): the run and submission columns lose their own indexes (``score_unique_cell`` and
``score_submission`` begin with them), and the submission column, a copy of the run's, its
foreign key constraint. The run's index is dropped alone, so that the run's constraint is
not dropped and added again (which would check every stored row)."""

import django.db.models.deletion
from django.db import migrations, models

RUN_INDEX = "competition_score_run_id_877e286f"


class Migration(migrations.Migration):
    dependencies = [
        ("competition", "0022_public_key_card_when"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name="score",
                    name="run",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="scores",
                        to="competition.scoringrun",
                    ),
                ),
            ],
            database_operations=[
                migrations.RunSQL(
                    f'DROP INDEX IF EXISTS "{RUN_INDEX}"',
                    reverse_sql=f'CREATE INDEX "{RUN_INDEX}" ON "competition_score" ("run_id")',
                ),
            ],
        ),
        migrations.AlterField(
            model_name="score",
            name="submission",
            field=models.ForeignKey(
                db_constraint=False,
                db_index=False,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="scores",
                to="competition.submission",
            ),
        ),
    ]
