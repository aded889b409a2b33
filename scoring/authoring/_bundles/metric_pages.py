"""What a participant needs on the pages besides the scorer: each metric's definition, the file format with a
right and a wrong example, the limits, the timeline and the reveal.

``definitions_html``, ``format_examples`` and ``participant_html`` write HTML with every value escaped
(``agrieval.scoring.text.literals.html``), ``definitions_markdown`` and ``participant_markdown`` the same
blocks in Markdown (Hugging Face's pages), every value through ``literals.markdown``/``markdown_code``/
``markdown_block``; the examples are made from the sample submission's first ids, and a test validates each
with the grader (the right one accepted, the wrong one rejected with the code the page names).
The metric formulas restate ``scoring/runtime/metrics`` (one implementation each; this is their prose).
"""

from __future__ import annotations

from typing import Dict, List, Tuple

from agrieval.scoring.text.template import Filled, fill, join, prose

__all__ = ["METRICS", "definitions_html", "definitions_markdown", "format_examples", "group_name", "meaning_of",
           "participant_html", "participant_markdown"]

# key -> (name, formula, what it means); P_i: the predicted set of row i, T_i: the true set.
METRICS: Dict[str, Tuple[str, str]] = {
    "transect_f1": ("F1_i = 2 |P_i ∩ T_i| / (|P_i| + |T_i|) for each quadrat i (1 when P_i and T_i are both "
                    "empty); transect F1 = (1 / |G|) Σ_g (1 / |g|) Σ_{i ∈ g} F1_i",
                    "the F1 of each quadrat, averaged within each transect g, then across the transects G: a "
                    "transect surveyed several times counts once"),
    "sample_f1": ("(1 / n) Σ_i F1_i", "the F1 of each row, averaged over the n rows (scikit-learn's "
                  "f1_score(average='samples'))"),
    "sample_precision": ("(1 / n) Σ_i |P_i ∩ T_i| / |P_i|", "the share of each row's predicted labels that are "
                         "right, averaged over rows (an empty prediction: 0, or 1 when the truth is empty too)"),
    "sample_recall": ("(1 / n) Σ_i |P_i ∩ T_i| / |T_i|", "the share of each row's true labels that were "
                      "predicted, averaged over rows (an empty truth: 0, or 1 when the prediction is empty too)"),
    "micro_f1": ("2 Σ_i |P_i ∩ T_i| / (Σ_i |P_i| + Σ_i |T_i|)", "F1 over all (row, label) pairs pooled"),
    "macro_f1": ("(1 / |C|) Σ_c 2 tp_c / (true_c + predicted_c)", "the F1 of each class c, averaged over the "
                 "classes C present in the truth or the predictions"),
    "accuracy": ("(1 / n) Σ_i [ŷ_i = y_i]", "the fraction of rows whose predicted class is the true class"),
    "balanced_accuracy": ("(1 / |C|) Σ_c tp_c / true_c", "the recall of each class, averaged over the classes C "
                          "present in the truth (scikit-learn's balanced_accuracy_score)"),
    "group_accuracy": ("(1 / |G|) Σ_g accuracy on the rows of g", "the accuracy within each group ({group}), "
                       "averaged over the groups"),
}


def group_name(definition) -> str:
    """What the definition calls one of its groups (``[grouping] name``: team, transect); "group" without one."""
    return definition.grouping.name if definition.grouping else "group"


def meaning_of(key: str, group: str = "group") -> str:
    """What metric ``key`` measures, its groups named as the definition's grouping calls them."""
    return METRICS[key][1].replace("{group}", group)


def definitions_html(keys: List[str], primary: str, group: str = "group") -> str:
    """A definition list of every metric in ``keys`` (a ``KeyError`` for one without a definition: a test
    keeps ``METRICS`` complete); ``group``: the name of the definition's grouping (its groups' unit)."""
    items = [fill(__file__, "metric_item.html", key=k, role=" (the ranking metric)" if k == primary else "",
                  formula=METRICS[k][0], meaning=meaning_of(k, group)) for k in keys]
    return fill(__file__, "definitions.html", items=join(items, "\n"))


def format_examples(definition, ids: List[str], labels: Tuple[str, str]) -> Tuple[str, str, str]:
    """(a right file, a wrong file, the code the wrong one is rejected with), two rows each, from real ids."""
    d = definition
    label, other = labels
    sep = d.delimiter
    head = sep.join(f'"{c}"' for c in d.expected_columns) if d.quoting == "all" else sep.join(d.expected_columns)
    if d.task == "multiclass":
        right = f"{head}\n" + "".join(f"{i}{sep}{label}\n" for i in ids[:2])
        wrong = f"{head}\n" + "".join(f"{i}{sep}{label} {other}\n" for i in ids[:2])
        return right, wrong, "unknown_label"
    if d.list_syntax == "python-list" and sep == ",":
        # a list holds commas: the cell must be quoted, or the row splits into more fields than the header
        right = f"{head}\n" + "".join(f'"{i}","[{label}, {other}]"\n' for i in ids[:2])
        wrong = f"{head}\n" + "".join(f"{i},[{label}, {other}]\n" for i in ids[:2])
        return right, wrong, "ragged_row"
    items = f"[{label}, {other}]" if d.list_syntax == "python-list" else f"{label} {other}"
    right = f"{head}\n" + "".join(f"{i}{sep}{items}\n" for i in ids[:2])
    wrong = f"{head}\n" + "".join(f"{i}{sep}[{label} {other}]\n" for i in ids[:2])
    return right, wrong, "non_integer_label" if d.label_type == "int" else "list_syntax"


def participant_html(definition, ids: List[str], labels: Tuple[str, str], limits_text: str,
                     timeline_text: str) -> str:
    """The format examples, the limits and the timeline, as a block of the data page."""
    right, wrong, code = format_examples(definition, ids, labels)
    return fill(__file__, "participant.html", right=right, wrong=wrong, code=code, advice=_advice(definition, "html"),
                limits=limits_text, timeline=timeline_text)


def _advice(definition, language: str) -> Filled:
    """How to write a list cell, where a list holds commas (a multilabel file delimited by commas)."""
    if definition.task == "multilabel" and definition.delimiter == ",":
        return fill(__file__, f"quoting_advice.{language}")
    return prose("")


def definitions_markdown(keys: List[str], primary: str, group: str = "group") -> str:
    """``definitions_html`` in Markdown: a list of every metric in ``keys`` with its formula and meaning."""
    role = prose(" (the ranking metric)")
    items = [fill(__file__, "metric_item.md", key=k, role=role if k == primary else prose(""), formula=METRICS[k][0],
                  meaning=meaning_of(k, group)) for k in keys]
    return fill(__file__, "definitions.md", items=join(items, "\n"))


def participant_markdown(definition, ids: List[str], labels: Tuple[str, str], limits_text: str,
                         timeline_text: str) -> str:
    """``participant_html`` in Markdown: the format examples, the limits and the timeline."""
    right, wrong, code = format_examples(definition, ids, labels)
    return fill(__file__, "participant.md", right=right, wrong=wrong, code=code, advice=_advice(definition, "md"),
                limits=limits_text, timeline=timeline_text)
