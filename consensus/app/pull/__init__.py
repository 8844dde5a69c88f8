"""The review of one pull request: its context, what it reads from the base branch, its
gates, the review and how its publication is applied."""
