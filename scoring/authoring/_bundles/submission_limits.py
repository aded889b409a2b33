"""Submission limits, the time limit and the selection limit of a bundle: the organizer's (``agrieval bundle
--per-day/--total/--time-limit/--selection-limit``) or, left unset, the platform's own defaults, read from each
platform's code.

``resolved(platform, options)`` gives the values a builder writes into the platform's configuration;
``readme_section(platform, options)`` the README's account of them and of which submission counts, with the
steps the configuration cannot express (each citing the platform's code).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

__all__ = ["Limits", "PLATFORM_DEFAULTS", "resolved", "readme_section"]


@dataclass(frozen=True)
class Limits:
    per_day: Optional[int]  # scored submissions per participant and day; None: the platform has no such setting
    total: Optional[int]
    time_limit: Optional[int]  # seconds of one grading on the platform's worker
    selection_limit: Optional[int] = None  # final submissions a team may select; None: the platform has no selection
    source: str = ""  # where the platform's defaults come from

    # The Options fields of the same names (competition_pages.Options) set them.
    NAMES = ("per_day", "total", "time_limit", "selection_limit")


# Each platform's defaults, from its code (repository at the commit read, file, line).
PLATFORM_DEFAULTS = {
    "codabench": Limits(
        per_day=5, total=100, time_limit=600,
        source="codalab/codabench c7dbc75 src/apps/competitions/unpackers/v2.py ~197-198 (max_submissions_per_day "
               "5, max_submissions 100 when absent), src/apps/competitions/models.py ~297 (execution_time_limit "
               "600 s); failed submissions do not count (Phase.can_user_make_submissions ~327-345: a day is the "
               "server's calendar date)"),
    "codalab": Limits(
        per_day=999, total=100, time_limit=300,
        source="codalab/codalab-competitions c7ef5e2 codalab/apps/web/models.py ~887-898 (max_submissions 100, "
               "max_submissions_per_day 999, execution_time_limit 300 s)"),
    "evalai": Limits(
        per_day=100000, total=100000, time_limit=None,
        source="Cloud-CV/EvalAI 0f04039 apps/challenges/models.py ~1000-1008 (max_submissions_per_day, "
               "max_submissions_per_month and max_submissions 100000: no limit in effect); a phase has no time "
               "limit of its own"),
    "hf": Limits(
        per_day=5, total=None, time_limit=3600, selection_limit=2,
        source="huggingface/competitions d887d2e competitions/create.py ~302-312 (the creation form's "
               "SUBMISSION_LIMIT 5 a day, SELECTION_LIMIT 2, TIME_LIMIT 3600 s, used by script competitions "
               "only); no total limit exists (submissions.py _is_submission_allowed)"),
    "kaggle": Limits(
        per_day=None, total=None, time_limit=None, selection_limit=2,
        source="Kaggle's host settings (no file of this bundle holds them); two final submissions by default "
               "(docs/facts/platforms.md)"),
}


def resolved(platform: str, options) -> Limits:
    """The values the ``platform``'s configuration gets: the organizer's where set, else the platform's (a
    selection limit only where the platform has a selection)."""
    base = PLATFORM_DEFAULTS[platform]
    values = {}
    for name in Limits.NAMES:
        asked = getattr(options, name, None)
        values[name] = getattr(base, name) if asked is None else asked
    if base.selection_limit is None:
        values["selection_limit"] = None
    return Limits(**values, source=base.source)


def _value(platform: str, options, name: str) -> str:
    set_by_organizer = getattr(options, name, None) is not None
    value = getattr(resolved(platform, options), name)
    default = getattr(PLATFORM_DEFAULTS[platform], name)
    unit = " s" if name == "time_limit" else ""
    if name == "selection_limit" and default is None:
        return ((f"{getattr(options, name)} asked, but " if set_by_organizer else "")
                + "none: the platform has no selection (the rule below says which submission counts)")
    if platform == "kaggle":  # no file of the bundle holds Kaggle's settings: the host enters them
        if set_by_organizer:
            return f"{value}{unit}: enter it in Kaggle's host settings"
        return ("Kaggle's host settings (no file of this bundle sets it)" if default is None
                else f"{default}{unit} (Kaggle's default; change it in the host settings)")
    if default is None:  # nothing in the platform's configuration says it
        if name == "time_limit":
            return (f"{value}{unit}, enforced by the bundled scorer's own guard (the platform has no such setting)"
                    if set_by_organizer else "none on the platform (the bundled scorer's own guard applies)")
        return (f"{value}{unit} asked, but the platform has no such setting: not enforced" if set_by_organizer
                else "none (the platform has no such setting)")
    return f"{value}{unit}" + ("" if set_by_organizer else " (the platform's default: set it with --"
                               + name.replace("_", "-") + ")")


# What the configuration cannot say about which submission counts: the host's step, with the platform's code.
SELECTION_STEPS = {
    "codabench": (
        "Which submission counts: the private leaderboard phase re-scores each participant's **last** finished "
        "final-phase submission (`submission_rule: Force_Last`; Competition.apply_phase_migration, "
        "src/apps/competitions/models.py ~116-170). Nothing else may reach it: registrations wait for your "
        "approval (`registration_auto_approve: false` unless --auto-approve: with auto-approval someone who "
        "registers after the end is approved at once; src/apps/api/views/competitions.py register ~351-375), "
        "and after the re-run the README's steps 6 and 7 stop scoring new uploads (untick Auto-run submissions) "
        "and delete any private entry without a final-phase submission. A phase's max submissions of 0 means "
        "no limit (Phase.can_user_make_submissions ~339-344) and ending a phase closes only its upload page: "
        "neither keeps anyone out."),
    "codalab": (
        "Which submission counts: CodaLab ranks each participant's submission that is on the leaderboard; with "
        "`force_submission_to_leaderboard: true` every finished submission replaces it, so the **latest** counts "
        "(codalab/apps/web/tasks.py ~618-628); the Final phase is blind (`hide_results`) until you publish it."),
    "evalai": (
        "Which submission counts: with submissions public by default, EvalAI ranks each team's **best** score "
        "over all its public submissions of the phase, on the private split too (apps/jobs/utils.py "
        "calculate_distinct_sorted_leaderboard_data; a 0.0-public/1.0-private file is ranked at 1.0), unless the "
        "phase split's `show_leaderboard_by_latest_submission` is true: then each team's **latest** submission "
        "counts (apps/challenges/models.py ChallengePhaseSplit ~1148, read by apps/jobs/utils.py ~533). The "
        "challenge configuration cannot set it: challenge creation copies six keys of each "
        "`challenge_phase_splits` entry and drops the rest (apps/challenges/views.py "
        "create_challenge_using_zip_file ~2148-2155, create_or_update_github_challenge ~4674-4681). So README "
        "step 2 sets it once the challenge exists, **before the end**: on the final phase's private-split "
        "leaderboard (yours alone to see until the reveal), button \"Sort by latest\" "
        "(frontend/src/js/controllers/challengeCtrl.js toggleShowLeaderboardByLatest ~1545-1551); the reveal "
        "is then only the visibility change."),
    "hf": (
        "Which submission counts: each team selects up to `SELECTION_LIMIT` ({k}) submissions; the private board "
        "ranks the best private score of them, or, if it selected none, its best public submission "
        "(competitions/leaderboard.py _process_private_lb). Nothing to do at the reveal."),
    "kaggle": (
        "Which submission counts: each team selects up to its number of final submissions ({k}; Kaggle's default is 2"
        "); with none selected its best public ones count. Set the daily limit and the number of final "
        "submissions in the competition's host settings."),
}


def readme_section(platform: str, options) -> str:
    """The README's section on limits and on which submission counts."""
    lines = ["", "## Submission limits and which submission counts", "",
             f"- submissions per participant and day: {_value(platform, options, 'per_day')}",
             f"- submissions in total: {_value(platform, options, 'total')}",
             f"- time limit of one grading on the platform: {_value(platform, options, 'time_limit')}",
             f"- final submissions a team may select: {_value(platform, options, 'selection_limit')}",
             f"- where the platform's defaults come from: {PLATFORM_DEFAULTS[platform].source}", "",
             SELECTION_STEPS[platform].format(k=resolved(platform, options).selection_limit), ""]
    return "\n".join(lines)
