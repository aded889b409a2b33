"""Plant plausible mistakes in the code, one at a time, and check that a test of the behaviour fails on each.

    .venv/bin/python scripts/mutation_check.py              # every mutation (about 6 minutes on 2 busy cores)
    .venv/bin/python scripts/mutation_check.py --list       # names, files and the tests that should kill them
    .venv/bin/python scripts/mutation_check.py --only holm_no_running_max
    .venv/bin/python scripts/mutation_check.py --baseline   # first check each test selection passes unmutated

A mutation is (file, an exact snippet found once in it, its replacement, the tests that should fail). The
snippet is replaced in place, the tests run (``pytest -x -q -p no:cacheprovider``, with a timeout), and the
file is put back byte for byte (its bytes and its modification time, in a ``finally``, checked after; no
bytecode is written while a file is mutated, so no stale ``.pyc`` survives it). KILLED: a test failed;
SURVIVED: every test passed, so nothing checks that behaviour. The exit status is 1 when any mutation
survived, timed out or could not run. Run it from a clean tree: an interrupted run (Ctrl-C, SIGTERM) still
restores the file, a SIGKILL does not (``git diff`` then shows the planted mistake).

No mutation framework: the list below is the point, each a mistake someone could really make (the first
twelve are the survivors of issue 56's mutation round), with the test that now catches it.
``tests/newcomer/test_mutation_list.py`` checks that every snippet still occurs once in its file, so the list
fails loudly when the code moves under it instead of silently planting nothing.

Equivalent mutations (that cannot change behaviour) are not listed; the ones met are argued at the end of this
file. Run with ``--baseline`` after editing the list: a selection that already fails unmutated kills everything.
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator, List, Optional, Sequence, Tuple

REPO = Path(__file__).resolve().parents[1]
TIMEOUT_S = 900


@dataclass(frozen=True)
class Mutation:
    name: str
    file: str  # relative to the repository root
    old: str  # occurs exactly once in the file
    new: str
    tests: Tuple[str, ...]  # pytest node ids or paths, relative to the root
    what: str  # the mistake, in words


M = Mutation
LADDER_TESTS = ("tests/scoring/runtime/test_ladder_inputs.py", "tests/scoring/runtime/test_ladder.py",
                 "tests/scoring/cli/test_grade_ladder.py")
LIMIT_TESTS = ("tests/scoring/runtime/test_limits_at_the_boundary.py",
               "tests/scoring/runtime/reading/test_limits_before_work.py", "tests/scoring/runtime/test_untrusted.py")
TEXT_TESTS = ("tests/scoring/text/test_every_code_point.py", "tests/scoring/text/test_text_escaping.py")
# The reader's differential tests (issue 58): each shortcut against its oracle, the csv-module path's own messages
READER_TESTS = ("tests/scoring/runtime/reading/",)
MUTATIONS: Tuple[Mutation, ...] = (
    # --- the survivors of issue 56's round (appendix), minus the own server's (the store's tests carry those)
    M("ladder_units_all_rows", "scoring/runtime/_unit_scores.py",
      'unit_values(values, units, np.flatnonzero(sol.split == "public"))',
      'unit_values(values, units, np.arange(len(sol.split)))', LADDER_TESTS,
      "the Ladder's per-unit values over public and private rows"),
    M("ladder_bar_from_raw_mean", "scoring/runtime/_ladder.py",
      'best["shown"][metric] if best else None)', 'best["raw"][metric] if best else None)', LADDER_TESTS,
      "the release bar from the best submission's raw mean instead of its shown, rounded value"),
    M("bootstrap_never_last_unit", "scoring/leaderboard/_bootstrap.py",
      "integers(0, n_units, size=(n_resamples, n_units))",
      "integers(0, max(n_units - 1, 1), size=(n_resamples, n_units))",
      ("tests/scoring/leaderboard/test_bootstrap_draws.py", "tests/scoring/leaderboard/test_bootstrap_interval.py"),
      "a bootstrap that never draws the last unit"),
    M("holm_no_running_max", "scoring/audit/_split_permutation.py",
      "running = max(running, min(1.0, (m - rank) * p_values[i]))",
      "running = min(1.0, (m - rank) * p_values[i])", ("tests/scoring/audit/test_holm_and_rank_movement.py", "tests/scoring/audit/test_audit.py"),
      "Holm's adjusted p-values without their running maximum"),
    M("strip_date_any_number", "scoring/runtime/grouping.py",
      'return re.sub(r"-[0-9]{8}$", "", joined', 'return re.sub(r"-[0-9]+$", "", joined',
      ("tests/scoring/runtime/test_transect_grouping.py",),
      "the strip-date rule stripping any trailing number instead of exactly eight digits"),
    M("strip_date_any_number_slow_path", "scoring/runtime/grouping.py",
      '    tail = quadrat_id[-9:]\n', '    return re.sub(r"-[0-9]+$", "", quadrat_id)\n',
      ("tests/scoring/runtime/test_transect_grouping.py",),
      "the same in the per-id rule (ids with a line break)"),
    M("upload_bytes_at_limit_refused", "scoring/runtime/reading/submission.py",
      "if len(data) > limits.max_bytes:", "if len(data) >= limits.max_bytes:",
      LIMIT_TESTS,
      "an upload held in memory of exactly the byte limit refused"),
    M("zip_bytes_at_limit_not_unzipped", "scoring/runtime/reading/_uploads.py",
      "and len(submission) <= limits.max_bytes:", "and len(submission) < limits.max_bytes:",
      LIMIT_TESTS,
      "a zip held in memory of exactly the byte limit read as a CSV instead of unzipped"),
    M("file_at_limit_refused", "scoring/runtime/reading/_bytes_checks.py",
      "    if size > max_bytes:\n", "    if size >= max_bytes:\n",
      LIMIT_TESTS, "a file of exactly the byte limit refused"),
    M("opening_rule_growth_never_fires", "scoring/runtime/untrusted.py",
      '    if len(data) > max_bytes:\n        raise UntrustedFileError("file_too_large", f"the {what} grew',
      '    if False:\n        raise UntrustedFileError("file_too_large", f"the {what} grew',
      LIMIT_TESTS, "the opening rule's 'file grew while being read' never firing"),
    M("reader_growth_never_fires", "scoring/runtime/reading/_bytes_checks.py",
      "if len(data) > max_bytes:  # grew while we read it", "if False:  # grew while we read it",
      LIMIT_TESTS,
      "the submission reader's 'file grew while being read' never firing"),
    M("one_line_keeps_line_separators", "scoring/text/terminal.py",
      "\\x7f-\\x9f\\u2028\\u2029\\u200e", "\\x7f-\\x9f\\u200e",
      ("tests/scoring/text/test_every_code_point.py", "tests/scoring/text/test_untrusted_text.py"),
      "one_line letting U+2028/U+2029 through"),
    M("markdown_leading_plus", "scoring/text/literals.py",
      'if body[:1] in ("-", "+", "="):', 'if body[:1] in ("-", "="):',
      TEXT_TESTS, "literals.markdown not escaping a leading '+'"),
    M("oracle_epoch_tie_later", "scoring/ctv/_selection_rules.py",
      "key=lambda h: (h[2], -h[0])", "key=lambda h: (h[2], h[0])",
      ("tests/scoring/ctv/test_selection_ties.py", "tests/scoring/ctv/test_replicates.py"),
      "ties in the oracle-test epoch keeping the later epoch"),
    M("lodo_epoch_tie_later", "scoring/ctv/_selection_rules.py",
      "/ len(held), -e))", "/ len(held), e))",
      ("tests/scoring/ctv/test_selection_ties.py", "tests/scoring/ctv/test_leave_one_team_out.py"),
      "ties in the leave-one-team-out epoch keeping the later epoch"),
    M("split_seed_without_fold", "data_tools/splits.py",
      "seed_parts=(seed, protocol, fold))", "seed_parts=(seed, protocol))",
      ("tests/data_tools/test_split_seeds.py", "tests/data_tools/test_splits.py"),
      "the split seed computed without the fold"),
    # --- this round's own: metrics
    M("f1_empty_both_ignored", "scoring/runtime/metrics/multilabel.py",
      "    for arr in (precision, recall, f1):\n", "    for arr in (precision, recall):\n",
      ("tests/scoring/runtime/metrics/",), "a quadrat with nothing to find and nothing found scoring F1 0"),
    M("transect_f1_flat_mean", "scoring/runtime/metrics/multilabel.py",
      '"transect_f1": truth.groups[k].mean(f_rows),', '"transect_f1": float(f_rows.mean()),',
      ("tests/scoring/runtime/metrics/",), "transect F1 as the mean over quadrats (a transect surveyed twice counts twice)"),
    M("micro_f1_without_two", "scoring/runtime/metrics/multilabel.py",
      "else 2 * int(tp[rows].sum()) / denom", "else int(tp[rows].sum()) / denom",
      ("tests/scoring/runtime/metrics/",), "micro F1 without its factor 2"),
    M("macro_f1_truth_classes_only", "scoring/runtime/metrics/multilabel.py",
      "present = np.flatnonzero(counted)", "present = np.flatnonzero(true_c)",
      ("tests/scoring/runtime/metrics/",), "multi-label macro F1 over the true classes only (a false class costs nothing)"),
    M("multiclass_macro_f1_truth_only", "scoring/runtime/metrics/multiclass.py",
      "labels = sorted(set(t.tolist()) | set(p.tolist()))\n    stats = per_class",
      "labels = sorted(set(t.tolist()))\n    stats = per_class",
      ("tests/scoring/runtime/metrics/",), "single-label macro F1 over the true classes only"),
    M("cross_team_accuracy_own_team", "scoring/runtime/metrics/multiclass.py",
      "keep = g != own_group", "keep = g == own_group",
      ("tests/scoring/runtime/metrics/",), "TOTO's cross-team accuracy measured on the training team"),
    M("vtg_sign", "scoring/runtime/metrics/multiclass.py",
      "return float(val_accuracy) - float(test_accuracy)", "return float(test_accuracy) - float(val_accuracy)",
      ("tests/scoring/runtime/metrics/",), "VTG as test - val"),
    M("vtg_sign_over_seeds", "scoring/ctv/_over_seeds.py",
      'per_seed["vtg"].append(val - test)', 'per_seed["vtg"].append(test - val)',
      ("tests/scoring/ctv/test_replicates.py",), "VTG over seeds as test - val"),
    M("ctv_std_population_always", "scoring/ctv/summarize.py",
      "std = float(x.std(ddof=ddof))", "std = float(x.std())",
      ("tests/scoring/ctv/test_summarize.py",), "CTV stds always population stds (Table 7 uses sample stds)"),
    M("spearman_resamples_are_pearson", "scoring/leaderboard/rank_agreement.py",
      "stats.pearsonr(stats.rankdata(xs, axis=1), stats.rankdata(ys, axis=1), axis=1)",
      "stats.pearsonr(xs, ys, axis=1)", ("tests/scoring/leaderboard/test_rank_agreement.py",),
      "the bootstrap of Spearman's rho computing Pearson's r (no ranks)"),
    # --- leaderboards, the Ladder, the audit
    M("ranks_ties_share_worst", "scoring/leaderboard/build.py",
      "int(1 + np.count_nonzero(arr > s))", "int(np.count_nonzero(arr >= s))",
      ("tests/scoring/leaderboard/test_leaderboard.py",), "ties sharing the worst rank (1, 3, 3, 4)"),
    M("ladder_population_std", "scoring/runtime/_ladder.py",
      "np.std(diff, ddof=1)", "np.std(diff)", LADDER_TESTS,
      "the Ladder's standard error from the population std (the paper: sample std, n - 1)"),
    M("ladder_floor_rounding", "scoring/runtime/_ladder.py",
      "float(round(value * n_units)) / n_units", "float(math.floor(value * n_units)) / n_units", LADDER_TESTS,
      "the released value floored instead of rounded to the nearest 1/n"),
    M("rank_movement_never_last_unit", "scoring/audit/_rank_movement.py",
      "integers(0, unit_values.shape[1], size=", "integers(0, max(unit_values.shape[1] - 1, 1), size=",
      ("tests/scoring/audit/test_holm_and_rank_movement.py", "tests/scoring/audit/test_audit.py"),
      "the audit's rank bootstrap never drawing the last unit"),
    # --- splits, ids, quoting
    M("val_count_truncated", "data_tools/splits.py",
      "n_val = int(np.floor(val_fraction * len(rows) + 0.5))", "n_val = int(val_fraction * len(rows))",
      ("tests/data_tools/test_splits.py",), "the validation count truncated instead of rounded"),
    M("ids_unkeyed_hash", "data_tools/_keyed_ids.py",
      'hmac.new(key, path.encode("utf-8"), sha256).hexdigest()', 'sha256(path.encode("utf-8")).hexdigest()',
      ("tests/data_tools/test_id_attack.py",), "participant-visible ids a plain hash of the path (no key)"),
    M("yaml_keeps_line_separators", "scoring/text/literals.py",
      "\\xa0-\\u2027\\u202a-\\ud7ff", "\\xa0-\\ud7ff",
      TEXT_TESTS, "YAML scalars letting U+2028/U+2029 through (a line break to PyYAML: the blanks around it lost)"),
    M("markdown_paren_list_item", "scoring/text/literals.py",
      '_ORDERED = re.compile(r"[0-9]{1,9}[.)]")', '_ORDERED = re.compile(r"[0-9]{1,9}[.]")',
      TEXT_TESTS, "literals.markdown not escaping a leading '1)' list item"),
    # --- the reader: a shortcut that stops agreeing with its oracle, a message the one-pass mending gets wrong
    M("field_spans_lone_cr", "scoring/runtime/reading/_csv_spans.py", "if n_crlf != n_cr:", "if n_crlf > n_cr:",
      READER_TESTS, "the numpy tokenizer taking a file with a lone CR (the csv module ends a record there)"),
    M("line_fields_one_field_blank", "scoring/runtime/reading/_csv_spans.py",
      "blank = (counts == 1) & (ends[last] == starts[last])", "blank = counts == 1",
      READER_TESTS, "a line of one non-empty field taken for a blank line"),
    M("quote_blanks_column_unmended", "scoring/runtime/reading/_quote_blanks.py",
      "offset -= taken_before - taken_before[first_on_line]", "offset -= 0",
      READER_TESTS, "the vectorised blanks' character counted on the unmended line"),
    M("mend_record_column_unmended", "scoring/runtime/reading/_quote_trouble.py",
      'on_space(k, i - removed, QuoteTrouble("space", i - removed, b - i, field))',
      'on_space(k, i, QuoteTrouble("space", i, b - i, field))',
      READER_TESTS, "the one-pass mending's character counted on the unmended line"),
    M("mend_record_field_after_quote", "scoring/runtime/reading/_quote_trouble.py",
      "        field += 1\n        i += 1", "        i += 1",
      READER_TESTS, "the one-pass mending not counting a quoted field (the wrong column for the next blank)"),
    M("mend_space_on_first_line", "scoring/runtime/reading/_tokenize.py", "line=first + 1 + k,", "line=first + 1,",
      READER_TESTS, "a blank after a quote in a record over several lines named on the record's first line"),
    M("irregular_ragged_column", "scoring/runtime/reading/_tokenize.py",
      "column=n_fields + 1 if len(rec) > n_fields else len(rec) + 1)", "column=n_fields + 1)",
      READER_TESTS, "a short ragged row (csv-module path) named at the column past the header's"),
    M("int_lists_leading_zero", "scoring/runtime/reading/_digit_lists.py",
      "leading_zero = a[starts[lo:hi]] == ord(\"0\")", "leading_zero = a[starts[lo:hi]] == ord(\"/\")",
      READER_TESTS, "the byte-level list reader taking a label with a leading zero"),
)


def snippet_problems(mutations: Sequence[Mutation] = MUTATIONS) -> List[str]:
    """What keeps a mutation from being planted as written (empty: every one can be)."""
    out = []
    names = [m.name for m in mutations]
    out += [f"{n}: listed twice" for n in sorted({n for n in names if names.count(n) > 1})]
    for m in mutations:
        path = REPO / m.file
        if not path.is_file():
            out.append(f"{m.name}: {m.file} does not exist")
            continue
        count = path.read_text(encoding="utf-8").count(m.old)
        if count != 1:
            out.append(f"{m.name}: its snippet occurs {count} times in {m.file}, not once")
        if m.old == m.new:
            out.append(f"{m.name}: the replacement is the snippet itself")
        out += [f"{m.name}: test path {t} does not exist" for t in m.tests
                if not (REPO / t.split("::")[0]).exists()]
    return out


class _Terminated(Exception):
    pass


def _on_sigterm(signum, frame):  # a SIGTERM unwinds through the finally that restores the file
    raise _Terminated()


def run_tests(tests: Sequence[str], timeout_s: int) -> Tuple[str, float, str]:
    """(KILLED | SURVIVED | TIMEOUT | ERROR, seconds, the tail of pytest's output)."""
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")  # no .pyc of a mutated file
    cmd = [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", *tests]
    start = time.monotonic()
    with subprocess.Popen(cmd, cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          start_new_session=True) as proc:
        try:
            out, _ = proc.communicate(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)  # pytest and whatever it started
            proc.communicate()
            return "TIMEOUT", time.monotonic() - start, ""
        except BaseException:
            os.killpg(proc.pid, signal.SIGKILL)
            raise
    tail = "\n".join(out.decode("utf-8", "replace").strip().splitlines()[-3:])
    verdict = {0: "SURVIVED", 1: "KILLED"}.get(proc.returncode, "ERROR")
    return verdict, time.monotonic() - start, tail


def mutate_and_run(m: Mutation, timeout_s: int) -> Tuple[str, float, str]:
    """Plant ``m``, run its tests, put the file back byte for byte (checked)."""
    path = REPO / m.file
    original = path.read_bytes()
    stat = path.stat()
    text = original.decode("utf-8")
    if text.count(m.old) != 1:
        return "ERROR", 0.0, f"the snippet occurs {text.count(m.old)} times in {m.file}"
    try:
        path.write_bytes(text.replace(m.old, m.new).encode("utf-8"))
        return run_tests(m.tests, timeout_s)
    finally:
        path.write_bytes(original)
        os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
        if path.read_bytes() != original:
            sys.exit(f"FATAL: {m.file} was not restored; `git diff {m.file}` shows what is left")


def _select(only: Optional[List[str]]) -> Iterator[Mutation]:
    known = {m.name: m for m in MUTATIONS}
    for name in only or list(known):
        if name not in known:
            sys.exit(f"unknown mutation {name!r}; --list shows them")
        yield known[name]


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--list", action="store_true", help="list the mutations and exit")
    parser.add_argument("--only", action="append", metavar="NAME", help="run this mutation (repeatable)")
    parser.add_argument("--baseline", action="store_true", help="first run each test selection unmutated")
    parser.add_argument("--timeout", type=int, default=TIMEOUT_S, help="seconds per mutation's tests")
    args = parser.parse_args(argv)
    chosen = list(_select(args.only))
    if args.list:
        for m in chosen:
            print(f"{m.name}\t{m.file}\t{' '.join(m.tests)}\t{m.what}")
        return 0
    problems = snippet_problems(chosen)
    if problems:
        print("\n".join(problems), file=sys.stderr)
        return 1
    signal.signal(signal.SIGTERM, _on_sigterm)
    if args.baseline:
        for tests in sorted({m.tests for m in chosen}):
            verdict, seconds, tail = run_tests(tests, args.timeout)
            if verdict != "SURVIVED":  # unmutated, every test must pass
                print(f"baseline fails ({verdict}, {seconds:.0f}s): {' '.join(tests)}\n{tail}", file=sys.stderr)
                return 1
    tally: dict = {}
    for m in chosen:
        verdict, seconds, tail = mutate_and_run(m, args.timeout)
        tally[verdict] = tally.get(verdict, 0) + 1
        print(f"{verdict:8} {m.name:36} {seconds:5.0f}s  {m.what}", flush=True)
        if verdict != "KILLED" and tail:
            print("         " + tail.replace("\n", "\n         "), flush=True)
    print(", ".join(f"{n} {v.lower()}" for v, n in sorted(tally.items())) + f" of {len(chosen)}")
    return 0 if set(tally) == {"KILLED"} else 1


if __name__ == "__main__":
    sys.exit(main())


# Equivalent mutations met while writing the list (not planted: no test can or should catch them)
# - multilabel.Groups's "dense codes" test (``group_codes.max() <= 4 * len(group_codes)``) with another
#   factor: both branches give every group its mean (np.unique's codes or the codes themselves, absent groups
#   counting 0 rows and left out by ``present``); the factor only trades a sort for a longer bincount.
# - multilabel._label_codes's ``span < 50_000_000`` and ``8 * len(both)`` thresholds: counting by id or by
#   np.unique's codes gives the same per-class counts in the same ascending label order; speed only.
# - csv_spans.field_spans letting a field of four quotes (a doubled quote inside) pass its quote count: the check
#   after it (a quoted field's first and last bytes are its only quotes, by position) declines the same fields.
