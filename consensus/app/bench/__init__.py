"""`consensus bench` and `consensus calibrate`: a suite's reviews compared (bench, its source,
runs and dry-run plan) and labelled claims put to every judge (judge_rates)."""
