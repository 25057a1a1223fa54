"""A conversation saved as a scenario from the page: `store` keeps the draft and the run list
on the server (no gradio), `panel` is the chat's Save as scenario button's editor and its
handlers."""
