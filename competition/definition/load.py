"""Loading a competition from its YAML definition (docs/competition-definition.md):
``manage.py load_competition`` and the definition upload's last step.

The file is read into a spec (`competition.definition.yaml_io`, every path it names kept
inside the YAML's own folder) and applied whole (`competition.definition.apply`), which holds
the rules: loading is idempotent (objects matched by slug), tasks, phases and sub-corpora the
file no longer lists are deleted unless something was submitted to them (then nothing
changes), a phase whose gold keys or scoring changed is re-scored, and baselines are
submitted once.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from competition.definition.apply import CompetitionLoad, competition_apply
from competition.definition.files import DefinitionFiles
from competition.definition.organizers import Door
from competition.definition.spec import SpecError
from competition.definition.yaml_io import definition_read
from competition.errors import DefinitionError

__all__ = ["CompetitionLoad", "competition_load", "definition_files_load"]


def competition_load(
    *, path: str | Path, with_baselines: bool = True, rescore: bool = True
) -> CompetitionLoad:
    """Create or update the competition a YAML definition describes.

    Raises ``DefinitionError`` naming the file and the place in it that is wrong, or the
    objects the file no longer lists that hold submissions; nothing is written then.
    """
    given = Path(path)
    definition = given.absolute()
    files = DefinitionFiles(definition=definition, root=definition.parent, name=str(path))
    if not definition.is_file():
        raise DefinitionError(str(path), "file not found")
    door = Door(name=f"the definition {given.name}", operator=True)  # the command line's
    return definition_files_load(
        files=files, door=door, with_baselines=with_baselines, rescore=rescore
    )


def definition_files_load(
    *,
    files: DefinitionFiles,
    door: Door,
    with_baselines: bool = True,
    rescore: bool = True,
    slug: str | None = None,
    progress: Callable[[str], None] | None = None,
) -> CompetitionLoad:
    """Read the definition ``files`` holds into a spec and apply it; ``slug``: the
    competition it must be (an upload on a competition's page); ``progress`` is told what
    is being done (a job's page shows it); ``door``: who loads it, through which door (the
    organizers it lists are theirs to add or not, `competition.definition.organizers`)."""
    spec = definition_read(files, slug=slug)
    try:
        return competition_apply(
            spec=spec,
            rescore=rescore,
            with_baselines=with_baselines,
            progress=progress,
            door=door,
        )
    except SpecError as exc:
        raise DefinitionError(files.name, exc.message) from None
