"""The GitHub Actions face: read the event, hand it to app/."""
