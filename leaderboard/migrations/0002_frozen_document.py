from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("leaderboard", "0001_initial")]

    operations = [
        migrations.AddField(
            model_name="boardsnapshot",
            name="document",
            field=models.BinaryField(default=b"", editable=False),
        ),
        migrations.AddField(
            model_name="boardsnapshot",
            name="document_gzip",
            field=models.BinaryField(default=b"", editable=False),
        ),
        migrations.AddField(
            model_name="boardsnapshot",
            name="document_etag",
            field=models.CharField(blank=True, editable=False, max_length=80),
        ),
    ]
