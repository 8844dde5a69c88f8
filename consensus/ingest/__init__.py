"""Diff → reviewable files: parse, path filters, redaction, consensus's own scan, chunks. Pure."""
