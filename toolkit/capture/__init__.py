"""Captures as DataFrames: records from ``toolkit.sources`` become frames with declared dtypes.

``load`` builds the frames, ``frames`` declares them, ``redact`` is the one place that knows what a
secret looks like, ``export`` writes the frames as Parquet.
"""

from __future__ import annotations

from toolkit.capture.load import FRAME_NAMES, Capture, find_captures, load_capture, load_captures

__all__ = ["FRAME_NAMES", "Capture", "find_captures", "load_capture", "load_captures"]
