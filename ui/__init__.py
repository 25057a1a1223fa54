"""The page's side of the app, apart from its layout (which is app.py).

`trace_view` turns agent events into page values and needs no gradio; `page_state` is what one
browser session owns; `handlers` are what the page's inputs and buttons call; `examples` are
the requests offered under the input. `access` decides what a visitor may ask of the server's
key and network, and how often; `sweeper` removes what idle conversations leave behind;
`server` is the page's `gr.Blocks`, which runs the sweep while it serves, behind `body_limit`,
which caps every request's body; `json_bounds` bounds JSON from outside before it is parsed
or validated. `scenarios_tab` is the Scenarios tab: `scenario_runs` runs scenario files for it
with the session's settings, and `conversation_view` shows a run or a downloaded conversation
file read-only.
"""
