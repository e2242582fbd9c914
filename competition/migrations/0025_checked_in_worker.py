from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("competition", "0024_upload_warnings"),
    ]

    operations = [
        migrations.AddField(
            model_name="submission",
            name="problems",
            field=models.JSONField(blank=True, default=list),
        ),
    ]
