"""The trace panel: what each agent event changes on the page (`view`), the turn's step
messages (`steps`), and a Thought while it streams (`thought`). Pure data, no gradio."""
