from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [("competition", "0012_definition_jobs"), ("competition", "0012_scoring_parts")]
    operations = []
