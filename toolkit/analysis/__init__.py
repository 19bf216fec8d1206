"""Analyses across layers and captures: what-if policies, hop alignment, provenance, triage, verify."""

__all__: list[str] = []
