"""Keeping, listing, exporting and reopening conversations.

`stored` is the format the browser keeps them in and reads back what it sends; `snapshot` the
page's conversation in that format; `kept` what the server knows the browser holds, and the
changes it sends; `restore` makes a kept conversation the page's again. `handlers` are what the
saved-conversations panel calls, and `panel` its parts, script and wiring. `export` writes the
download (`transcript` its Markdown); `view` shows a downloaded file (read back by
`agent.conversation_file`) or a scenario run read-only, and `reopen` opens a download in the
chat again, to go on with it.
"""
