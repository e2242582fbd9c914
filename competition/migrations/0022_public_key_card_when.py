from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("competition", "0021_idempotency_key")]

    operations = [
        migrations.AddField(
            model_name="phasedatafile",
            name="public_key",
            field=models.BooleanField(default=False),
        ),
        migrations.AddField(
            model_name="systemcardquestion",
            name="when",
            field=models.JSONField(blank=True, default=dict),
        ),
    ]
