"""Notebook widgets: the strict-variant comparer, the capture explorer and the execution what-if.

One module per widget over a shared ``base`` (selection memory, HTML panes). Each widget is a thin
class over plain functions that return dicts or DataFrames, so the logic is tested without a kernel.
Presentation only, and needs the ``notebooks`` extra (ipywidgets): the CLI does not import this package.
"""

from toolkit.present.widgets.base import forget_selections, frame_html
from toolkit.present.widgets.capture_explorer import (
    FILTER_COLUMNS,
    LAYER_CHOICES,
    CaptureExplorer,
    detail_html,
    exchange_detail,
    exchange_label,
    filter_exchanges,
    time_options,
)
from toolkit.present.widgets.strict_variants import (
    COMPATS,
    DSH_TOOLS,
    GATEWAYS,
    READ_NON_STRICT,
    READ_NORMALISED,
    READ_NOT_SENT,
    READ_TRANSFORMED,
    StrictVariantComparer,
    compare_views,
    diff_html,
    summary_html,
    tool_definition,
    variant_view,
)
from toolkit.present.widgets.whatif_explorer import (
    WHATIF_BASE_COLUMNS,
    WhatIfExplorer,
    session_mode,
    whatif_table,
)

__all__ = [
    "COMPATS",
    "DSH_TOOLS",
    "FILTER_COLUMNS",
    "GATEWAYS",
    "LAYER_CHOICES",
    "READ_NON_STRICT",
    "READ_NORMALISED",
    "READ_NOT_SENT",
    "READ_TRANSFORMED",
    "WHATIF_BASE_COLUMNS",
    "CaptureExplorer",
    "StrictVariantComparer",
    "WhatIfExplorer",
    "compare_views",
    "detail_html",
    "diff_html",
    "exchange_detail",
    "exchange_label",
    "filter_exchanges",
    "forget_selections",
    "frame_html",
    "session_mode",
    "summary_html",
    "time_options",
    "tool_definition",
    "variant_view",
    "whatif_table",
]
