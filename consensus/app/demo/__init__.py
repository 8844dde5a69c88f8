"""`consensus demo`: a sample change reviewed by the scripted panel, locally or on a simulated
host (demo_github, demo_gitlab: each host's stage)."""
