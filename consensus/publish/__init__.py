"""What to post on a PR: the plan, the summary comment and its hidden state, slash-command
parsing and answers to commands. Pure.
"""
