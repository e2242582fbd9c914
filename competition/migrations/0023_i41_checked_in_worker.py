from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("competition", "0022_public_key_card_when"),
    ]

    operations = [
        migrations.AddField(
            model_name="submission",
            name="problems",
            field=models.JSONField(blank=True, default=list),
        ),
    ]
