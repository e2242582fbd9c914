"""The definition of a competition: one spec, one writer.

- `spec`: the typed parts of a competition (competition, tasks, tracks, phases, sub-corpora
  with their keys, pages, baselines), their defaults, limits and rules;
- `files`: the files a definition may name, kept inside its own folder or upload;
- `keys`: gold keys read like uploads, checked against their task and against the data files
  participants download;
- `yaml_io`: a definition file read into a spec, and a spec written as a definition;
- `current`: the spec of a competition as the database holds it (what the download writes);
- `apply`: a spec written to the database (the one writer of a competition's structure).

Front doors (above the services, which they may call; the parts above never import a
service): ``manage.py load_competition`` and the definition upload (`load`, `upload`) read a
file into a spec and apply it whole; the editor's forms (`editor`) build the part they edit
and apply it with the same functions; a bundle import (`bundle_import`) builds its spec from
a CodaLab or Codabench bundle; a clone of a competition and a copy of a phase's datasets
(`editions`) build theirs from `current`.
"""
