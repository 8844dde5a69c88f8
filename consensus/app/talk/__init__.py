"""Commands and replies: slash commands in PR comments, and the conversation in the threads
of our inline comments."""
