"""Presentation: widgets, plots, reports and the CLI. Only calls the layers and analyses below it.

``report`` and ``cli`` need only the core dependencies; ``widgets`` and ``plots`` need the ``notebooks``
extra (ipywidgets, matplotlib). Import the modules themselves: this package exports nothing.
"""

__all__: list[str] = []
