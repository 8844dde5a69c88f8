"""Shared test setup: litellm never fetches its price map from the network."""

from __future__ import annotations

import os

os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"
