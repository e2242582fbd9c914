"""Forms of the organizers' editor. They parse input only; competition.definition.editor holds
the rules.

Dates are typed in the phase's time zone (AoE, UTC or an IANA zone) and stored in UTC.
"""

from __future__ import annotations

from datetime import UTC, datetime

from django import forms

from competition.models import Phase, Task
from competition.timezones import AOE, in_zone, zone_choices, zone_get
from scoring.procedures import PROCEDURES

LOCAL_FORMAT = "%Y-%m-%dT%H:%M"


class LocalDateTimeField(forms.DateTimeField):
    """A date and time typed without zone (the phase's zone applies; see `PhaseForm`)."""

    widget = forms.DateTimeInput(attrs={"type": "datetime-local"}, format=LOCAL_FORMAT)
    input_formats = [LOCAL_FORMAT, "%Y-%m-%dT%H:%M:%S", "%Y-%m-%d %H:%M", "%Y-%m-%d"]

    def to_python(self, value):  # no conversion to the server's zone: naive on purpose
        if value in self.empty_values:
            return None
        for fmt in self.input_formats:
            try:
                return datetime.strptime(str(value).strip(), fmt)
            except ValueError:
                continue
        raise forms.ValidationError("Enter a date and time like 2026-06-30T23:59.", code="invalid")


def aware(value: datetime | None, zone_name: str) -> datetime | None:
    """A naive date and time typed in ``zone_name``, in UTC."""
    if value is None:
        return None
    return value.replace(tzinfo=zone_get(zone_name)).astimezone(UTC)


def local(value: datetime | None, zone_name: str) -> datetime | None:
    """What a field shows for a stored UTC moment: the naive time in the zone."""
    if value is None:
        return None
    return in_zone(value, zone_name).replace(tzinfo=None)


class TrackForm(forms.Form):
    """A track of a task: its slug (when added; fixed afterwards), name and description."""

    slug = forms.SlugField(
        max_length=100,
        required=False,
        help_text="Used in addresses and by the command line (codicrac "
        "submit --track llm); left empty: made from the name. Fixed "
        "once the track is added.",
    )
    name = forms.CharField(max_length=100, help_text="e.g. LLM, Unconstrained.")
    description = forms.CharField(
        required=False,
        widget=forms.Textarea(attrs={"rows": 2}),
        help_text="What runs of this track may use.",
    )


class CompetitionCreateForm(forms.Form):
    slug = forms.SlugField(max_length=100, help_text="Used in URLs, e.g. crac-2026.")
    title = forms.CharField(max_length=300)
    owner = forms.CharField(
        max_length=150,
        label="Owner (user name)",
        help_text="This user organizes the competition and may add other organizers.",
    )


class CompetitionForm(forms.Form):
    title = forms.CharField(max_length=300)
    description = forms.CharField(widget=forms.Textarea(attrs={"rows": 4}), required=False)
    website = forms.URLField(required=False, assume_scheme="https")


class CloneForm(forms.Form):
    slug = forms.SlugField(
        max_length=100, label="Slug of the copy", help_text="Used in URLs, e.g. crac-2027."
    )
    title = forms.CharField(max_length=300, label="Title of the copy")
    days = forms.IntegerField(
        label="Move every date by (days)", initial=365, min_value=-3660, max_value=3660
    )
    with_keys = forms.BooleanField(label="Copy the gold keys too", required=False)


class PhaseCopyForm(forms.Form):
    source = forms.ModelChoiceField(queryset=Phase.objects.none(), label="Phase to copy from")
    with_keys = forms.BooleanField(label="With their gold keys", required=False, initial=True)

    def __init__(self, *args, phases=(), **kwargs) -> None:
        super().__init__(*args, **kwargs)
        field = self.fields["source"]
        field.queryset = Phase.objects.filter(pk__in=[p.pk for p in phases]).select_related(
            "task__competition"
        )
        field.label_from_instance = lambda p: (
            f"{p.task.competition.title} / {p.task.title} / {p.title}"
        )


class OrganizerAddForm(forms.Form):
    username = forms.CharField(max_length=150, label="Add an organizer (user name)")


class TaskForm(forms.Form):
    slug = forms.SlugField(max_length=100)
    title = forms.CharField(max_length=300)
    kind = forms.ChoiceField(choices=Task.Kind.choices)
    description = forms.CharField(widget=forms.Textarea(attrs={"rows": 3}), required=False)
    procedure = forms.ChoiceField(
        required=False,
        choices=[("", "— none: scorer options below —"), *((name, name) for name in PROCEDURES)],
        help_text="A named, versioned scoring of an edition (docs/scorer.md).",
    )
    scorer_options = forms.CharField(
        required=False,
        help_text="UA scorer option words, e.g. keep_bridging; blank: the kind's default.",
    )
    primary_metric = forms.CharField(required=False, help_text="Blank: the kind's default.")

    def cleaned_options(self) -> list[str]:
        return self.cleaned_data.get("scorer_options", "").split()


class PhaseForm(forms.Form):
    slug = forms.SlugField(max_length=100)
    title = forms.CharField(max_length=300)
    kind = forms.ChoiceField(choices=Phase.Kind.choices)
    time_zone = forms.ChoiceField(
        choices=zone_choices,
        initial=AOE,
        help_text="The dates below are in this zone; AoE: a "
        "deadline has passed everywhere on Earth.",
    )
    start = LocalDateTimeField()
    end = LocalDateTimeField(required=False, help_text="Blank: open-ended.")
    leaderboard_visibility = forms.ChoiceField(
        label="Leaderboard", choices=Phase.Visibility.choices
    )
    revealed_at = LocalDateTimeField(
        required=False,
        label="Reveal a hidden leaderboard at",
        help_text="Blank: hidden until revealed on the phase's organizer board.",
    )
    show_own_scores_when_hidden = forms.BooleanField(required=False)
    run_details = forms.ChoiceField(choices=Phase.RunDetails.choices)
    daily_limit = forms.IntegerField(min_value=0, initial=5)
    total_limit = forms.IntegerField(min_value=0, initial=100)
    counts = forms.ChoiceField(choices=Phase.Counts.choices)
    missing = forms.ChoiceField(choices=Phase.Missing.choices)

    DATES = ("start", "end", "revealed_at")

    @classmethod
    def initial_for(cls, phase: Phase) -> dict:
        initial = {name: getattr(phase, name) for name in cls.base_fields}
        for name in cls.DATES:
            initial[name] = local(getattr(phase, name), phase.time_zone)
        return initial

    def phase_fields(self) -> dict:
        """The cleaned values as `phase_save` takes them, dates in UTC."""
        data = {name: value for name, value in self.cleaned_data.items() if name != "slug"}
        for name in self.DATES:
            data[name] = aware(data[name], data["time_zone"])
        return data


class SubcorpusForm(forms.Form):
    name = forms.CharField(max_length=100, help_text="e.g. LIGHT, or a dataset such as cs_pcedt.")
    language = forms.CharField(max_length=64, required=False)
    file_name = forms.CharField(
        max_length=255,
        required=False,
        help_text="The file name participants upload, if not the "
        "name (e.g. cs_pcedt-corefud-test.conllu).",
    )
    available = forms.BooleanField(
        required=False, initial=True, help_text="Off: listed, but nothing is submitted for it."
    )
    key = forms.FileField(
        required=False,
        label="Gold key",
        help_text="CONLL-UA or CorefUD CoNLL-U; read by the scorer before "
        "it is stored. Never shown to participants.",
    )


class DataFileForm(forms.Form):
    file = forms.FileField(
        help_text="Development data, test inputs without coreference, "
        "gold mentions… never a gold key."
    )
    description = forms.CharField(max_length=300, required=False)
    public_key = forms.BooleanField(
        required=False,
        label="Public key (development data)",
        help_text="This file is this development phase's own gold key, released with its "
        "annotations (as CorefUD's dev data is). Keys of test phases are never handed out.",
    )
    release_at = LocalDateTimeField(
        required=False,
        label="Released at",
        help_text="In the phase's time zone; blank: when the phase opens.",
    )


class ReleaseForm(forms.Form):
    release_at = LocalDateTimeField(required=False)


class DefinitionUploadForm(forms.Form):
    definition = forms.FileField(
        label="Definition", help_text="The YAML, or a zip of the YAML and its keys."
    )


class BundleImportForm(forms.Form):
    bundle = forms.FileField(
        label="Bundle (zip)",
        help_text="A CodaLab competition bundle "
        "(competition.yaml) or a Codabench bundle (version: 2). Nothing "
        "in it is run.",
    )
    owner = forms.CharField(
        max_length=150,
        label="Owner (user name)",
        help_text="This user organizes the imported draft.",
    )
    slug = forms.SlugField(
        max_length=100, required=False, help_text="Used in URLs; empty: from the bundle's title."
    )


class BundleResultsForm(forms.Form):
    phase = forms.ChoiceField(label="Phase")
    results = forms.FileField(
        label="Results (CSV)",
        help_text="CodaLab's results CSV of the phase, or Codabench's leaderboard export.",
    )
    source = forms.CharField(
        max_length=400,
        help_text="Where the numbers come from (the old server's page, the paper and table).",
    )
    unit = forms.ChoiceField(
        choices=[
            ("auto", "Detect (above 1: percent)"),
            ("percent", "Percent"),
            ("fraction", "Fraction"),
        ]
    )

    def __init__(self, *args, phases=(), **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.fields["phase"].choices = [(str(p.pk), f"{p.task.title}: {p.title}") for p in phases]
