"""One browser session's page: what it owns (`state`), the values a turn streams to it
(`values`), the words that follow its language (`words`) and the script it runs as it loads
(`script`)."""
