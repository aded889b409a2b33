"""Leaderboards: score a folder of submissions, bootstrap intervals, paired
tests against the leader, public/private rank agreement, tables and charts.

``bootstrap`` resamples sampling units (transects, teams or rows),
``paired_test`` compares each submission with the leader on the same
resamples, ``build`` scores the folder, ``outputs`` writes CSV/JSON/Markdown
and ``plots`` draws the charts.
"""
