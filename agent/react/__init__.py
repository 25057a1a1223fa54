"""The ReAct text protocol: the grammar of the seed prompts' labels (`grammar`), reading a
reply into a step (`parser`, with `action_input`, `repair`, `embedded_calls`, `tool_names`,
`reasoning`), streaming the answer as it comes (`answer_stream`), and one step of the loop
(`step`)."""
