"""Prove a fix on the wire: replay one captured request as variants that change only the contract
(``strict`` absent or false, the schema pruned for the session's mode, images dropped), send each
several times, judge every answer by DSH's own rules, and say how sure the difference is.

``variants`` and ``judge``/``stats`` are pure; ``send`` is the only network I/O; ``run`` ties them
together and records every exchange as a capture the toolkit reads.
"""

from __future__ import annotations

from toolkit.experiment.frames import ANSWERS, CHANGES, PLAN, SUMMARY, VARIANTS, VERDICTS
from toolkit.experiment.judge import compare, judge, summarise
from toolkit.experiment.run import ExperimentResult, load, run
from toolkit.experiment.send import Limits, Sender
from toolkit.experiment.stats import fisher_exact, newcombe, wilson
from toolkit.experiment.variants import Variant, build, has_images, image_paths

__all__ = [
    "ANSWERS",
    "CHANGES",
    "PLAN",
    "SUMMARY",
    "VARIANTS",
    "VERDICTS",
    "ExperimentResult",
    "Limits",
    "Sender",
    "Variant",
    "build",
    "compare",
    "fisher_exact",
    "has_images",
    "image_paths",
    "judge",
    "load",
    "newcombe",
    "run",
    "summarise",
    "wilson",
]
