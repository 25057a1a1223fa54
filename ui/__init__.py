"""The page's side of the app, apart from its layout (which is app.py).

`trace` turns agent events into the trace panel and needs no gradio; `page` is what one browser
session owns and the values, words and script of its page; `turn_runner` runs one page turn
for a session; `handlers` are what the page's inputs and buttons call; `examples` are the
requests offered under the input. `conversations` keeps, lists, exports and reopens
conversations; `scenarios_tab` is the Scenarios tab. `access` decides what a visitor may ask of
the server's key and network, and how often; `sweeper` removes what idle conversations leave
behind; `server` is the page's `gr.Blocks`, which runs the sweep while it serves, behind
`body_limit`, which caps every request's body (`agent.json_bounds` bounds JSON from outside
before it is parsed or validated).
"""
