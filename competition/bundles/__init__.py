"""Bringing a competition from CodaLab or Codabench: a bundle (their "dump" zip) is opened
safely (`archive`), read into a neutral description with a report of what it holds
(`parse`; the description and its reader `description`, each dialect `codalab`,
`codabench`), and turned into a competition spec written through `competition.definition.apply`
(`build`, `competition.definition.bundle_import`). Nothing in a bundle is ever run: a scoring
program is recognised by its files or its command and mapped to a built-in procedure (`programs`).
Results come separately (`results`)."""
