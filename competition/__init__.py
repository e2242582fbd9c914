"""Django app of competitions, tasks, phases, sub-corpora, teams and submissions."""
