"""Text reports: the lines UA scorer v1 prints (spec §10), or v2's layout for dash options.

Both are rendered from the ``--json`` object of `scoring.api.score_files`, so the text and the
JSON never disagree. Values print as ``'%.2f' % (x * 100)``, like the references. Warnings are
not part of the report: the command line writes them to stderr.
"""

from __future__ import annotations

from typing import Any

from scoring.vocabulary import COREF_METRICS, EMPTY_NODE_MEASURES, EMPTY_NODES

RULE = "============================================"


def prf_line(scores: dict[str, Any]) -> str:
    """``Recall: xx.xx  Precision: xx.xx  F1: xx.xx`` (two spaces between the fields)."""
    return (
        f"Recall: {scores['recall'] * 100:.2f}  Precision: {scores['precision'] * 100:.2f}  "
        f"F1: {scores['f1'] * 100:.2f}"
    )


def v1_banner(mode: dict[str, Any]) -> str:
    """v1's first line, double space after "evaluating" and a trailing space included."""
    if mode["discourse_deixis"]:
        message = "only discourse deixis"
    elif mode["only_split_antecedent"]:
        message = "only split-antecedents"
    else:
        message = "corferent markables"  # sic: the reference's spelling
        if mode["keep_singletons"]:
            message += ", singletons"
        if mode["keep_split_antecedents"]:
            message += ", split-antecedents"
        if mode["keep_non_referring"]:
            message += ", non-referring mentions"
        if mode["keep_bridging"]:
            message += ", bridging relations"
    suffix = " using the minimum span evaluation setting " if mode["matching"] != "exact" else ""
    return f"The scorer is evaluating  {message} {suffix}"


def v2_banner(mode: dict[str, Any], report_order: list[str]) -> list[str]:
    """v2's banner lines (V:234-261), with its spelling of the no-coreference cases."""
    coreference = any(name in COREF_METRICS for name in report_order)
    if mode["discourse_deixis"]:
        message = "discourse deixis"
    elif mode["only_split_antecedent"]:
        message = "only split-antecedents"
    else:
        message = ""
        if coreference:
            message = "coreferential mentions"
            if mode["keep_singletons"]:
                message += ", singletons"
            if mode["keep_split_antecedents"]:
                message += ", split-antecedents"
            if mode["keep_zeros"]:
                message += f", zeros (using {mode['zero_match_method']} match method)"
        if mode["keep_non_referring"]:
            message += ", non-referring mentions" if coreference else "non-referring mentions"
        if mode["keep_bridging"]:
            message += (
                "bridging relations"
                if mode["keep_non_referring"] and not coreference
                else ", bridging relations"
            )
        if mode["np_only"]:
            message += ", keep only np mentions"
        if mode["remove_nested_mentions"]:
            message += ", excluding nested mentions"
    return [
        f"The scorer is evaluating {message} using {mode['matching']} match evaluation setting.",
        f"The following metrics will be evaluated: {', '.join(report_order)}",
        "",
    ]


def nr_block(scores: dict[str, Any]) -> list[str]:
    return [RULE, "Non-referring markable identification scores:", prf_line(scores)]


def bridging_block(bridging: dict[str, Any]) -> list[str]:
    return [
        RULE,
        "Bridging anaphora recognition scores:",
        prf_line(bridging["anaphora_recognition"]),
        "Full bridging scores (Markable Level):",
        prf_line(bridging["mention"]),
        "Full bridging scores (Entity Level):",
        prf_line(bridging["entity"]),
    ]


def text_report(result: dict[str, Any], report_order: list[str] | tuple[str, ...]) -> str:
    """The report as the reference prints it, one string ending in a newline."""
    mode = result["mode"]
    metrics = result["metrics"]
    lines: list[str] = []
    if mode["style"] == "v1":
        lines.append(v1_banner(mode))
        for name in COREF_METRICS:
            if name in metrics:
                lines += [name, prf_line(metrics[name])]
        if result["conll"] is not None:
            lines.append("CoNLL score: %.2f" % (result["conll"] * 100))
        if result["non_referring"] is not None:
            lines += nr_block(result["non_referring"])
        if result["bridging"] is not None:
            lines += bridging_block(result["bridging"])
        return "\n".join(lines) + "\n"
    lines += v2_banner(mode, list(report_order))
    for name in report_order:
        if name == "non-referring" and result["non_referring"] is not None:
            lines += nr_block(result["non_referring"])
        elif name == "bridging" and result["bridging"] is not None:
            lines += bridging_block(result["bridging"])
        elif name == EMPTY_NODES:
            lines += [RULE, "Empty nodes (CRAC 2026 measures):"]
            for measure in EMPTY_NODE_MEASURES:
                lines += [measure, prf_line(metrics[measure])]
        elif name in metrics:
            lines += [name, prf_line(metrics[name])]
    if result["conll"] is not None:
        lines.append("CoNLL score: %.2f" % (result["conll"] * 100))
    return "\n".join(lines) + "\n"
