"""Presentation: widgets, plots, reports and the CLI. Only calls the layers and analyses below it."""
