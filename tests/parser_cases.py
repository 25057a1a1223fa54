"""Replies in the styles real models write, with the step a careful reader takes from each.

Each case: (id, reply, expected fields of the Step). `TOOLS` is the tool list given to the parser.
"""

TOOLS = ["calculator", "image_info", "zoom", "ocr", "ASK_USER_FOR_REQUIRED_PARAMS", "search"]

FENCE = "```"

CASES: list[tuple[str, str, dict]] = [
    (
        "protocol-exact",
        "Thought: I need to add the numbers.\nAction: calculator\n"
        'Action Input: {"expression": "2+2"}',
        {
            "kind": "action",
            "tool": "calculator",
            "tool_input": {"expression": "2+2"},
            "thought": "I need to add the numbers.",
        },
    ),
    (
        "protocol-answer",
        "Thought: I can answer without using any more tools.\nAnswer: The dog is brown.",
        {
            "kind": "answer",
            "answer": "The dog is brown.",
            "thought": "I can answer without using any more tools.",
        },
    ),
    (
        "gpt4o-bold-labels",
        "**Thought:** The image shows a receipt; I should read it.\n**Action:** ocr\n"
        '**Action Input:** {"image_id": "img_1"}',
        {"kind": "action", "tool": "ocr", "tool_input": {"image_id": "img_1"}},
    ),
    (
        "bold-colon-outside",
        '**Thought**: zoom in\n**Action**: zoom\n**Action Input**: {"image_id": "img_2"}',
        {
            "kind": "action",
            "tool": "zoom",
            "tool_input": {"image_id": "img_2"},
            "thought": "zoom in",
        },
    ),
    (
        "bold-answer",
        "**Thought:** Done.\n**Answer:** There are **three** cats.",
        {"kind": "answer", "answer": "There are **three** cats."},
    ),
    (
        "bold-whole-answer-line",
        "Thought: done\n**Answer: 42**",
        {"kind": "answer", "answer": "42"},
    ),
    (
        "upper-case-labels",
        'THOUGHT: compute\nACTION: calculator\nACTION INPUT: {"expression": "3*7"}',
        {"kind": "action", "tool": "calculator", "tool_input": {"expression": "3*7"}},
    ),
    (
        "lower-case-labels",
        'thought: compute\naction: calculator\naction input: {"expression": "1/3"}',
        {"kind": "action", "tool": "calculator", "tool_input": {"expression": "1/3"}},
    ),
    (
        "full-width-colons",
        'Thought：需要计算\nAction：calculator\nAction Input：{"expression": "6*7"}',
        {"kind": "action", "tool": "calculator", "tool_input": {"expression": "6*7"}},
    ),
    (
        "no-thought-action",
        'Action: zoom\nAction Input: {"image_id": "img_1", "factor": 2}',
        {
            "kind": "action",
            "tool": "zoom",
            "tool_input": {"image_id": "img_1", "factor": 2},
            "thought": "",
        },
    ),
    (
        "no-thought-answer",
        "Answer: It is a tabby cat.",
        {"kind": "answer", "answer": "It is a tabby cat.", "thought": ""},
    ),
    (
        "preamble-as-thought",
        'I should look closer at the sign.\nAction: zoom\nAction Input: {"image_id": "img_1"}',
        {"kind": "action", "tool": "zoom", "thought": "I should look closer at the sign."},
    ),
    (
        "final-answer-label",
        "Thought: I now know the final answer\nFinal Answer: Beijing will be sunny tomorrow.",
        {"kind": "answer", "answer": "Beijing will be sunny tomorrow."},
    ),
    (
        "json-code-fence",
        f"Thought: read the size\nAction: image_info\nAction Input:\n{FENCE}json\n"
        f'{{"image_id": "img_1"}}\n{FENCE}',
        {"kind": "action", "tool": "image_info", "tool_input": {"image_id": "img_1"}},
    ),
    (
        "fence-on-input-line",
        f'Action: image_info\nAction Input: {FENCE}json\n{{"image_id": "img_3"}}\n{FENCE}',
        {"kind": "action", "tool": "image_info", "tool_input": {"image_id": "img_3"}},
    ),
    (
        "fence-without-language",
        f'Action: zoom\nAction Input: {FENCE}\n{{"image_id": "img_1"}}\n{FENCE}',
        {"kind": "action", "tool": "zoom", "tool_input": {"image_id": "img_1"}},
    ),
    (
        "fence-around-whole-action",
        f"{FENCE}\nThought: zoom first\nAction: zoom\n"
        f'Action Input: {{"image_id": "img_1"}}\n{FENCE}',
        {
            "kind": "action",
            "tool": "zoom",
            "tool_input": {"image_id": "img_1"},
            "thought": "zoom first",
        },
    ),
    (
        "fence-around-whole-answer",
        f"{FENCE}\nThought: I can answer without using any more tools.\n"
        f"Answer: A red bus.\n{FENCE}",
        {"kind": "answer", "answer": "A red bus."},
    ),
    (
        "python-dict-input",
        "Thought: x\nAction: zoom\nAction Input: {'image_id': 'img_1', 'sharpen': True, "
        "'box': None, 'factor': 2.5}",
        {
            "kind": "action",
            "tool": "zoom",
            "tool_input": {"image_id": "img_1", "sharpen": True, "box": None, "factor": 2.5},
        },
    ),
    (
        "python-dict-apostrophe",
        "Action: ocr\nAction Input: {'image_id': 'img_1', 'hint': \"it's a menu\"}",
        {
            "kind": "action",
            "tool": "ocr",
            "tool_input": {"image_id": "img_1", "hint": "it's a menu"},
        },
    ),
    (
        "bare-string-input",
        "Thought: search\nAction: calculator\nAction Input: 17 * 23",
        {"kind": "action", "tool": "calculator", "tool_input": {"input": "17 * 23"}},
    ),
    (
        "bare-word-input",
        "Action: image_info\nAction Input: img_1",
        {"kind": "action", "tool": "image_info", "tool_input": {"input": "img_1"}},
    ),
    (
        "json-string-input",
        'Action: calculator\nAction Input: "2+2"',
        {"kind": "action", "tool": "calculator", "tool_input": {"input": "2+2"}},
    ),
    (
        "json-number-input",
        "Action: calculator\nAction Input: 42",
        {"kind": "action", "tool": "calculator", "tool_input": {"input": 42}},
    ),
    (
        "json-list-input",
        'Action: zoom\nAction Input: ["img_1", "img_2"]',
        {"kind": "action", "tool": "zoom", "tool_input": {"input": ["img_1", "img_2"]}},
    ),
    (
        "multiline-json",
        'Action: zoom\nAction Input: {\n  "image_id": "img_1",\n  "box": [0, 0, 10, 10]\n}',
        {
            "kind": "action",
            "tool": "zoom",
            "tool_input": {"image_id": "img_1", "box": [0, 0, 10, 10]},
        },
    ),
    (
        "unterminated-json",
        'Action: zoom\nAction Input: {"image_id": "img_1", "factor": 2',
        {"kind": "action", "tool": "zoom", "tool_input": {"image_id": "img_1", "factor": 2}},
    ),
    (
        "unterminated-string",
        'Action: ocr\nAction Input: {"image_id": "img_1", "lang": "en',
        {"kind": "action", "tool": "ocr", "tool_input": {"image_id": "img_1", "lang": "en"}},
    ),
    (
        "call-syntax-keywords",
        'Thought: math\nAction: calculator(expression="2+2")',
        {"kind": "action", "tool": "calculator", "tool_input": {"expression": "2+2"}},
    ),
    (
        "call-syntax-positional",
        'Action: calculator("2+2")',
        {"kind": "action", "tool": "calculator", "tool_input": {"input": "2+2"}},
    ),
    (
        "call-syntax-dict",
        'Action: zoom({"image_id": "img_1", "keep_ratio": true})',
        {"kind": "action", "tool": "zoom", "tool_input": {"image_id": "img_1", "keep_ratio": True}},
    ),
    (
        "call-syntax-expression",
        "Action: calculator(2 + 2)",
        {"kind": "action", "tool": "calculator", "tool_input": {"input": "2 + 2"}},
    ),
    (
        "escaped-underscore",
        'Thought: size?\nAction: image\\_info\nAction Input: {"image\\_id": "img\\_1"}',
        {"kind": "action", "tool": "image_info", "tool_input": {"image_id": "img_1"}},
    ),
    (
        "tool-other-case",
        'Action: Image_Info\nAction Input: {"image_id": "img_1"}',
        {"kind": "action", "tool": "image_info"},
    ),
    (
        "tool-spaces-backticks-period",
        'Action: `image info`.\nAction Input: {"image_id": "img_1"}',
        {"kind": "action", "tool": "image_info"},
    ),
    (
        "tool-in-brackets-and-bold",
        'Action: **[zoom]**\nAction Input: {"image_id": "img_1"}',
        {"kind": "action", "tool": "zoom"},
    ),
    (
        "tool-quoted",
        'Action: "calculator"\nAction Input: {"expression": "1+1"}',
        {"kind": "action", "tool": "calculator"},
    ),
    (
        "tool-with-namespace",
        'Action: functions.zoom\nAction Input: {"image_id": "img_1"}',
        {"kind": "action", "tool": "zoom"},
    ),
    (
        "unknown-tool-kept",
        'Action: `web_search`\nAction Input: {"query": "cats"}',
        {"kind": "action", "tool": "web_search", "tool_input": {"query": "cats"}},
    ),
    (
        "hallucinated-observation",
        'Thought: zoom\nAction: zoom\nAction Input: {"image_id": "img_1"}\nObservation: The '
        "zoomed image shows a cat.\nThought: I know now.\nAnswer: A cat.",
        {"kind": "action", "tool": "zoom", "tool_input": {"image_id": "img_1"}, "answer": None},
    ),
    (
        "action-then-concluded-answer",
        'Action: calculator\nAction Input: {"expression": "9*9"}\nAnswer: 81',
        {"kind": "answer", "answer": "81", "tool": None},
    ),
    (
        "answer-before-action",
        'Thought: easy\nAnswer: It is 4.\nAction: calculator\nAction Input: {"expression": "2+2"}',
        {"kind": "answer", "answer": "It is 4.", "tool": None},
    ),
    (
        "action-input-after-blank-lines",
        'Thought: zoom\nAction: zoom\n\n\nAction Input: {"image_id": "img_1"}',
        {"kind": "action", "tool": "zoom", "tool_input": {"image_id": "img_1"}},
    ),
    (
        "action-without-input",
        "Thought: I will look at the image info.\nAction: image_info",
        {"kind": "action", "tool": "image_info", "tool_input": {}},
    ),
    (
        "empty-action-input",
        "Action: image_info\nAction Input: {}",
        {"kind": "action", "tool": "image_info", "tool_input": {}},
    ),
    (
        "action-none-then-answer",
        "Thought: No tool needed.\nAction: None\nAnswer: The sky is blue.",
        {"kind": "answer", "answer": "The sky is blue."},
    ),
    (
        "answer-keeps-markdown",
        "Thought: list them\n"
        "Answer: I see:\n\n1. a **red** car\n2. a `bus`\n\n| a | b |\n|---|---|",
        {
            "kind": "answer",
            "answer": "I see:\n\n1. a **red** car\n2. a `bus`\n\n| a | b |\n|---|---|",
        },
    ),
    (
        "answer-with-code-block",
        f"Thought: code\nAnswer: Use this:\n{FENCE}python\nprint(1)\n{FENCE}",
        {"kind": "answer", "answer": f"Use this:\n{FENCE}python\nprint(1)\n{FENCE}"},
    ),
    (
        "plain-prose",
        "The image shows two dogs playing in the snow.\n\nThey look happy.",
        {
            "kind": "answer",
            "answer": "The image shows two dogs playing in the snow.\n\nThey look happy.",
        },
    ),
    (
        "sorry-answer",
        "Thought: I cannot answer the question with the provided tools.\n"
        "Answer: Sorry, I cannot answer your query.",
        {"kind": "answer", "answer": "Sorry, I cannot answer your query."},
    ),
    (
        "orion-json-thought",
        'Thought: {"content": "The user wants the weather but gave no city.", '
        '"tool_to_use_for_user": "weather", "known_params": {"date": "tomorrow"}}\n'
        "Action: ASK_USER_FOR_REQUIRED_PARAMS\n"
        'Action Input: {"question": "Which city?"}',
        {
            "kind": "action",
            "tool": "ASK_USER_FOR_REQUIRED_PARAMS",
            "tool_input": {"question": "Which city?"},
            "thought": "The user wants the weather but gave no city.",
            "thought_data": {
                "content": "The user wants the weather but gave no city.",
                "tool_to_use_for_user": "weather",
                "known_params": {"date": "tomorrow"},
            },
        },
    ),
    (
        "orion-json-thought-multiline-braces",
        'Thought: {\n  "content": "Use {city} from the last turn",\n'
        '  "tool_to_use_for_user": "weather",\n  "known_params": null\n}\n'
        'Action: ask_user_for_required_params\nAction Input: {"question": "Which day?"}',
        {
            "kind": "action",
            "tool": "ASK_USER_FOR_REQUIRED_PARAMS",
            "thought": "Use {city} from the last turn",
            "thought_data": {
                "content": "Use {city} from the last turn",
                "tool_to_use_for_user": "weather",
                "known_params": None,
            },
        },
    ),
    (
        "orion-json-thought-no-content",
        'Thought: {"tool_to_use_for_user": "weather", "known_params": "Beijing"}\n'
        'Action: weather\nAction Input: {"city": "Beijing"}',
        {
            "kind": "action",
            "tool": "weather",
            "thought": "",
            "thought_data": {"tool_to_use_for_user": "weather", "known_params": "Beijing"},
        },
    ),
    (
        "orion-free-text-thought",
        'Thought: the user wants weather\nAction: weather\nAction Input: {"city": "Shanghai"}',
        {
            "kind": "action",
            "tool": "weather",
            "thought": "the user wants weather",
            "thought_data": None,
        },
    ),
    (
        "llama-one-line",
        'Thought: I should zoom in. Action: zoom Action Input: {"image_id": "img_1"}',
        {
            "kind": "action",
            "tool": "zoom",
            "tool_input": {"image_id": "img_1"},
            "thought": "I should zoom in.",
        },
    ),
    (
        "llama-native-json-call",
        '{"name": "zoom", "parameters": {"image_id": "img_1", "factor": 3}}',
        {"kind": "action", "tool": "zoom", "tool_input": {"image_id": "img_1", "factor": 3}},
    ),
    (
        "qwen-tool-call-tag",
        '<tool_call>\n{"name": "ocr", "arguments": {"image_id": "img_2"}}\n</tool_call>',
        {"kind": "action", "tool": "ocr", "tool_input": {"image_id": "img_2"}},
    ),
    (
        "gemma-tool-code-block",
        f'{FENCE}tool_code\nzoom(image_id="img_1", factor=2)\n{FENCE}',
        {"kind": "action", "tool": "zoom", "tool_input": {"image_id": "img_1", "factor": 2}},
    ),
    (
        "langchain-json-action",
        f'Action:\n{FENCE}json\n{{"action": "calculator", "action_input": {{"expression": "5-3"}}}}'
        f"\n{FENCE}",
        {"kind": "action", "tool": "calculator", "tool_input": {"expression": "5-3"}},
    ),
    (
        "langchain-json-final-answer",
        '{"action": "Final Answer", "action_input": "The total is 12."}',
        {"kind": "answer", "answer": "The total is 12."},
    ),
    (
        "mistral-markdown-headings",
        '### Thought:\nI need OCR.\n### Action:\nocr\n### Action Input:\n{"image_id": "img_1"}',
        {
            "kind": "action",
            "tool": "ocr",
            "tool_input": {"image_id": "img_1"},
            "thought": "I need OCR.",
        },
    ),
    (
        "bulleted-labels",
        '- Thought: zoom\n- Action: zoom\n- Action Input: {"image_id": "img_1"}',
        {"kind": "action", "tool": "zoom", "tool_input": {"image_id": "img_1"}},
    ),
    (
        "kwargs-input",
        'Action: zoom\nAction Input: image_id="img_1", factor=2',
        {"kind": "action", "tool": "zoom", "tool_input": {"image_id": "img_1", "factor": 2}},
    ),
    (
        "input-with-trailing-prose",
        'Action: zoom\nAction Input: {"image_id": "img_1"} (waiting for the result)',
        {"kind": "action", "tool": "zoom", "tool_input": {"image_id": "img_1"}},
    ),
    (
        "trailing-bold-on-tool",
        '**Action: zoom**\n**Action Input: {"image_id": "img_1"}**',
        {"kind": "action", "tool": "zoom", "tool_input": {"image_id": "img_1"}},
    ),
    (
        "plural-thoughts-label",
        "Thoughts: the answer is clear\nAnswer: Yes.",
        {"kind": "answer", "answer": "Yes.", "thought": "the answer is clear"},
    ),
    (
        "crlf-line-endings",
        'Thought: x\r\nAction: zoom\r\nAction Input: {"image_id": "img_1"}\r\n',
        {"kind": "action", "tool": "zoom", "tool_input": {"image_id": "img_1"}},
    ),
    (
        "answer-with-nested-json",
        'Thought: done\nAnswer: The result is {"width": 640, "height": 480}.',
        {"kind": "answer", "answer": 'The result is {"width": 640, "height": 480}.'},
    ),
]

CASES += [
    (
        "input-on-the-action-line",
        'Thought: zoom\nAction: zoom {"image_id": "img_1", "factor": 2}',
        {"kind": "action", "tool": "zoom", "tool_input": {"image_id": "img_1", "factor": 2}},
    ),
    (
        "action-input-label-on-the-action-line",
        'Action: `zoom`, Action Input: {"image_id": "img_1"}',
        {"kind": "action", "tool": "zoom", "tool_input": {"image_id": "img_1"}},
    ),
    (
        "braces-doubled-as-in-the-template",
        'Action: ocr\nAction Input: {{"image_id": "img_1", "lang": "en"}}',
        {"kind": "action", "tool": "ocr", "tool_input": {"image_id": "img_1", "lang": "en"}},
    ),
    (
        "small-model-italic-labels",
        "*Thought:* it is a dog\n*Answer:* A golden retriever.",
        {"kind": "answer", "answer": "A golden retriever.", "thought": "it is a dog"},
    ),
]

CASES += [
    (
        "final-answer-written-as-a-tool",
        "Thought: I know it now.\nAction: Final Answer\nAction Input: The sign says STOP.",
        {"kind": "answer", "answer": "The sign says STOP.", "thought": "I know it now."},
    ),
    (
        "final-answer-tool-with-json",
        'Action: final_answer\nAction Input: {"answer": "Two cats."}',
        {"kind": "answer", "answer": "Two cats."},
    ),
]

# Classes that real replies (issue threads, Chinese-language agents) showed being misread.
CASES += [
    # The server stopped inside the stop word `Observation:`; the cut-off label is no argument.
    (
        "cut-stop-obs-after-json",
        'Thought: I need the size.\nAction: image_info\nAction Input: {"image_id": "img_1"}\nObs',
        {"kind": "action", "tool": "image_info", "tool_input": {"image_id": "img_1"}},
    ),
    (
        "cut-stop-observat-after-bare-string",
        "Action: calculator\nAction Input: 12*7\nObservat",
        {"kind": "action", "tool": "calculator", "tool_input": {"input": "12*7"}},
    ),
    (
        "cut-stop-observation-without-colon",
        "Thought: zoom in\nAction: zoom\nAction Input: img_2\nObservation",
        {"kind": "action", "tool": "zoom", "tool_input": {"input": "img_2"}},
    ),
    (
        "cut-stop-chinese-labels",
        '思考：需要读取图片中的文字\n行动：ocr\n行动输入：{"image_id": "img_1"}\n观察',
        {
            "kind": "action",
            "tool": "ocr",
            "tool_input": {"image_id": "img_1"},
            "thought": "需要读取图片中的文字",
        },
    ),
    (
        "cut-stop-chinese-after-bare-string",
        "Thought: 计算一下\nAction: calculator\nAction Input: 3*(4+5)\n观",
        {"kind": "action", "tool": "calculator", "tool_input": {"input": "3*(4+5)"}},
    ),
    (
        "cut-stop-bold",
        "**Thought:** read it\n**Action:** ocr\n**Action Input:** img_3\n**Obs",
        {"kind": "action", "tool": "ocr", "tool_input": {"input": "img_3"}},
    ),
    (
        "cut-stop-after-call-syntax",
        'Action: calculator("2**10")\nObserv',
        {"kind": "action", "tool": "calculator", "tool_input": {"input": "2**10"}},
    ),
    (
        "cut-stop-after-answer",
        "Thought: done\nAnswer: The total is 12.\nObs",
        {"kind": "answer", "answer": "The total is 12."},
    ),
    # Labels written without colons.
    (
        "colonless-labels",
        'Thought I need to add them\nAction calculator\nAction Input {"expression": "2+3"}',
        {
            "kind": "action",
            "tool": "calculator",
            "tool_input": {"expression": "2+3"},
            "thought": "I need to add them",
        },
    ),
    (
        "colonless-action-with-colon-input",
        'Action zoom\nAction Input: {"image_id": "img_1"}',
        {"kind": "action", "tool": "zoom", "tool_input": {"image_id": "img_1"}},
    ),
    (
        "colonless-input-after-colon-action",
        'Thought: read the sign\nAction: ocr\nAction Input {"image_id": "img_2"}',
        {"kind": "action", "tool": "ocr", "tool_input": {"image_id": "img_2"}},
    ),
    (
        "colonless-bold-labels",
        '**Thought** zoom in\n**Action** zoom\n**Action Input** {"image_id": "img_1", "factor": 2}',
        {"kind": "action", "tool": "zoom", "tool_input": {"image_id": "img_1", "factor": 2}},
    ),
    (
        "colonless-known-tool-without-input",
        "Thought The image size is needed\nAction image_info",
        {"kind": "action", "tool": "image_info", "tool_input": {}},
    ),
    (
        "colonless-chinese-thought",
        'Thought 用户想知道图片尺寸\nAction image_info\nAction Input {"image_id": "img_1"}',
        {
            "kind": "action",
            "tool": "image_info",
            "tool_input": {"image_id": "img_1"},
            "thought": "用户想知道图片尺寸",
        },
    ),
    (
        "colonless-final-answer",
        "Thought I know it now\nFinal Answer The bus is red.",
        {"kind": "answer", "answer": "The bus is red.", "thought": "I know it now"},
    ),
    (
        "colonless-word-in-prose-stays-prose",
        "Action movies are my favourite.\nThought provoking ones most of all.",
        {
            "kind": "answer",
            "answer": "Action movies are my favourite.\nThought provoking ones most of all.",
        },
    ),
    # The Action line is a sentence: the one known tool it names is the tool.
    (
        "prose-action-names-one-tool",
        "Thought: I should look closer.\n"
        "Action: Zoom into the top left of the image using the zoom tool\n"
        'Action Input: {"image_id": "img_1", "region": "top_left"}',
        {
            "kind": "action",
            "tool": "zoom",
            "tool_input": {"image_id": "img_1", "region": "top_left"},
        },
    ),
    (
        "prose-action-tool-name-with-spaces",
        "Action: I will use the image info tool to get the size\n"
        'Action Input: {"image_id": "img_1"}',
        {"kind": "action", "tool": "image_info", "tool_input": {"image_id": "img_1"}},
    ),
    (
        "prose-action-chinese",
        "Thought: 需要计算\nAction: 使用 calculator 工具计算结果\n"
        'Action Input: {"expression": "6*7"}',
        {"kind": "action", "tool": "calculator", "tool_input": {"expression": "6*7"}},
    ),
    (
        "prose-action-bold",
        '**Action:** Use the **ocr** tool on img_1\n**Action Input:** {"image_id": "img_1"}',
        {"kind": "action", "tool": "ocr", "tool_input": {"image_id": "img_1"}},
    ),
    # A JSON action blob without an Action label or a code fence.
    (
        "json-blob-after-thought",
        'Thought: I need to compute this.\n{"action": "calculator", "action_input": '
        '{"expression": "12/4"}}',
        {
            "kind": "action",
            "tool": "calculator",
            "tool_input": {"expression": "12/4"},
            "thought": "I need to compute this.",
        },
    ),
    (
        "json-blob-markdown-escaped-keys",
        'Thought: read the text\n{"action": "ocr", "action\\_input": {"image\\_id": "img\\_1"}}',
        {"kind": "action", "tool": "ocr", "tool_input": {"image_id": "img_1"}},
    ),
    (
        "json-blob-name-arguments-after-prose",
        'I will check the size first.\n{"name": "image_info", "arguments": {"image_id": "img_2"}}',
        {
            "kind": "action",
            "tool": "image_info",
            "tool_input": {"image_id": "img_2"},
            "thought": "I will check the size first.",
        },
    ),
    (
        "json-blob-chinese-thought",
        "思考：用户想放大图片\n"
        '{"action": "zoom", "action_input": {"image_id": "img_1", "factor": 2}}',
        {
            "kind": "action",
            "tool": "zoom",
            "tool_input": {"image_id": "img_1", "factor": 2},
            "thought": "用户想放大图片",
        },
    ),
    (
        "json-blob-python-repr",
        "Thought: size\n{'action': 'image_info', 'action_input': {'image_id': 'img_1'}}",
        {"kind": "action", "tool": "image_info", "tool_input": {"image_id": "img_1"}},
    ),
    (
        "json-blob-string-input",
        '{"action": "calculator", "action_input": "2**8"}',
        {"kind": "action", "tool": "calculator", "tool_input": {"input": "2**8"}},
    ),
    (
        "json-blob-openai-function-shape",
        '{"function": {"name": "zoom", "arguments": "{\\"image_id\\": \\"img_1\\"}"}}',
        {"kind": "action", "tool": "zoom", "tool_input": {"image_id": "img_1"}},
    ),
    (
        "fenced-json-action-with-string-input",
        f'Action:\n{FENCE}json\n{{"action": "calculator", "action_input": "7*6"}}\n{FENCE}',
        {"kind": "action", "tool": "calculator", "tool_input": {"input": "7*6"}},
    ),
    (
        "json-in-a-prose-answer-stays-the-answer",
        'The file holds:\n{"name": "Alice", "arguments": ["x"]}',
        {"kind": "answer", "answer": 'The file holds:\n{"name": "Alice", "arguments": ["x"]}'},
    ),
    # The final answer written as a call.
    (
        "finish-call",
        'Thought: I have it.\nfinish(answer="The sign says STOP.")',
        {"kind": "answer", "answer": "The sign says STOP.", "thought": "I have it."},
    ),
    (
        "final-answer-call-alone",
        'final_answer("There are three cats.")',
        {"kind": "answer", "answer": "There are three cats."},
    ),
    (
        "final-answer-call-in-action",
        'Thought: done\nAction: final_answer(answer="42")',
        {"kind": "answer", "answer": "42"},
    ),
    (
        "final-answer-call-in-code-block",
        f'Thought: I know the answer.\nCode:\n{FENCE}py\nfinal_answer("Paris")\n{FENCE}<end_code>',
        {"kind": "answer", "answer": "Paris"},
    ),
    (
        "final-answer-json-blob-after-thought",
        'Thought: done\n{"action": "Final Answer", "action_input": "A red bus."}',
        {"kind": "answer", "answer": "A red bus.", "thought": "done"},
    ),
    (
        "final-answer-json-chinese",
        '{"action": "最终答案", "action_input": "图中有两只猫。"}',
        {"kind": "answer", "answer": "图中有两只猫。"},
    ),
    (
        "finish-in-square-brackets",
        "Thought: The answer is Paris.\nAction: Finish[Paris]",
        {"kind": "answer", "answer": "Paris"},
    ),
    # Several calls without labels: the first whole call, never glued to the next.
    (
        "two-calls-take-the-first",
        'zoom(image_id="img_1", factor=2)\nocr(image_id="img_2")',
        {"kind": "action", "tool": "zoom", "tool_input": {"image_id": "img_1", "factor": 2}},
    ),
    (
        "two-calls-after-a-thought",
        'Thought: first the size, then the text\nimage_info("img_1")\nocr("img_1")',
        {
            "kind": "action",
            "tool": "image_info",
            "tool_input": {"input": "img_1"},
            "thought": "first the size, then the text",
        },
    ),
    (
        "two-calls-in-the-action",
        'Action: ocr(image_id="img_1")\nzoom(image_id="img_1")',
        {"kind": "action", "tool": "ocr", "tool_input": {"image_id": "img_1"}},
    ),
    (
        "two-calls-on-one-line",
        'calculator("2+2"); calculator("3+3")',
        {"kind": "action", "tool": "calculator", "tool_input": {"input": "2+2"}},
    ),
    (
        "two-calls-in-a-code-block",
        f'{FENCE}python\nzoom(image_id="img_1")\nocr(image_id="img_1")\n{FENCE}',
        {"kind": "action", "tool": "zoom", "tool_input": {"image_id": "img_1"}},
    ),
    (
        "two-calls-chinese-preamble",
        '我先读取文字，再放大。\nocr("img_1")\nzoom("img_1")',
        {
            "kind": "action",
            "tool": "ocr",
            "tool_input": {"input": "img_1"},
            "thought": "我先读取文字，再放大。",
        },
    ),
    # One quoted argument in brackets is the text, not a list.
    (
        "call-one-string-list",
        'Action: calculator(["2+2"])',
        {"kind": "action", "tool": "calculator", "tool_input": {"input": "2+2"}},
    ),
    (
        "call-single-quoted-string",
        "Thought: read it\nAction: ocr('img_1')",
        {"kind": "action", "tool": "ocr", "tool_input": {"input": "img_1"}},
    ),
    (
        "call-one-string-list-without-label",
        'zoom(["img_3"])',
        {"kind": "action", "tool": "zoom", "tool_input": {"input": "img_3"}},
    ),
    (
        "call-chinese-string",
        "Action: calculator('三加四')",
        {"kind": "action", "tool": "calculator", "tool_input": {"input": "三加四"}},
    ),
    (
        "call-square-brackets",
        "Thought: multiply\nAction: calculator[17*23]",
        {"kind": "action", "tool": "calculator", "tool_input": {"input": "17*23"}},
    ),
    (
        "input-with-a-type-field-is-not-a-schema",
        'Action: search\nAction Input: {"query": "cats", "type": "string"}',
        {"kind": "action", "tool": "search", "tool_input": {"query": "cats", "type": "string"}},
    ),
    # An answer and an action in one reply: what the model concluded (see agent/react/parser.py).
    (
        "answer-after-the-call-chinese",
        'Thought: 需要计算\nAction: calculator\nAction Input: {"expression": "6*7"}\n'
        "Thought: 我现在知道答案了\nFinal Answer: 6乘7等于42。",
        {"kind": "answer", "answer": "6乘7等于42。", "thought": "我现在知道答案了"},
    ),
    (
        "answer-after-the-call-bold",
        '**Thought:** zoom first\n**Action:** zoom\n**Action Input:** {"image_id": "img_1"}\n'
        "**Answer:** The sign says STOP.",
        {"kind": "answer", "answer": "The sign says STOP."},
    ),
    (
        "placeholder-answer-before-the-action",
        "Thought: I need the text.\nAnswer: I will read the text first.\nAction: ocr\n"
        'Action Input: {"image_id": "img_1"}',
        {
            "kind": "action",
            "tool": "ocr",
            "tool_input": {"image_id": "img_1"},
            "thought": "I need the text.",
        },
    ),
    (
        "placeholder-answer-after-the-action",
        'Action: zoom\nAction Input: {"image_id": "img_1"}\nAnswer: Let me zoom in and check.',
        {"kind": "action", "tool": "zoom", "tool_input": {"image_id": "img_1"}},
    ),
    (
        "placeholder-answer-chinese",
        "Thought: 需要识别文字\nAnswer: 我将使用 ocr 工具读取文字。\nAction: ocr\n"
        'Action Input: {"image_id": "img_1"}',
        {"kind": "action", "tool": "ocr", "tool_input": {"image_id": "img_1"}},
    ),
    (
        "placeholder-words-alone-are-the-answer",
        "Thought: all done\nAnswer: Let me know if you need anything else.",
        {"kind": "answer", "answer": "Let me know if you need anything else."},
    ),
    (
        "answer-after-a-second-call-is-dropped",
        'Action: zoom\nAction Input: {"image_id": "img_1"}\nAction: ocr\n'
        'Action Input: {"image_id": "img_1"}\nAnswer: It says hi.',
        {"kind": "action", "tool": "zoom", "tool_input": {"image_id": "img_1"}},
    ),
    (
        "answer-after-a-made-up-observation-chinese",
        '行动：ocr\n行动输入：{"image_id": "img_1"}\n'
        "观察：图片上写着“你好”\n最终答案：图片上写着“你好”。",
        {"kind": "action", "tool": "ocr", "tool_input": {"image_id": "img_1"}, "answer": None},
    ),
]

# Replies with no usable step, and a word the retry message must carry about why.
ERRORS: list[tuple[str, str, str]] = [
    ("empty", "", "empty"),
    ("whitespace", "  \n\t ", "empty"),
    ("action-without-name", "Thought: I will use a tool.\nAction:\nAction Input: {}", "no tool"),
    ("action-blank-name", "Action:   \n", "no tool"),
    ("thought-only", "Thought: The image shows a cat, let me think.", "no Action or Answer"),
    ("input-without-action", 'Action Input: {"image_id": "img_1"}', "no Action line"),
    ("empty-answer", "Thought: done\nAnswer:   ", "Answer is empty"),
    ("only-observation", "Observation: something happened", "no Action or Answer"),
    ("prose-action-names-no-tool", "Action: Look it up on the internet", "naming no known tool"),
    ("prose-action-names-two-tools", "Action: First zoom in, then run ocr", "several tools"),
    (
        "json-schema-echoed",
        'Action: search\nAction Input: {"type": "object", "properties": {"query": {"type": '
        '"string", "description": "What to look for"}}, "required": ["query"]}',
        "parameter schema",
    ),
    (
        "python-repr-schema-echoed",
        "Thought: x\nAction: zoom\nAction Input: {'type': 'object', 'properties': {'image_id': "
        "{'type': 'string'}}}",
        "parameter schema",
    ),
    (
        "property-schema-echoed",
        'Action: search\nAction Input: {"query": {"type": "string", "description": "the query"}}',
        "parameter schema",
    ),
    (
        "property-schema-echoed-chinese",
        '行动：search\n行动输入：{"query": {"type": "string", "description": "搜索的关键词"}}',
        "parameter schema",
    ),
    (
        "schema-echoed-in-a-json-call",
        '{"name": "zoom", "parameters": {"type": "object", "properties": {"image_id": '
        '{"type": "string"}}, "required": ["image_id"]}}',
        "parameter schema",
    ),
    (
        "schema-echoed-in-a-fence",
        f'Action: ocr\nAction Input:\n{FENCE}json\n{{"image_id": {{"type": "string", '
        f'"description": "Which image"}}}}\n{FENCE}',
        "parameter schema",
    ),
    ("action-input-empty", "Thought: x\nAction: zoom\nAction Input:", "Action Input is empty"),
    ("action-input-empty-then-cut-stop", "Action: ocr\nAction Input: \nObserv", "is empty"),
    ("action-input-empty-fence", f"Action: zoom\nAction Input: {FENCE}json\n{FENCE}", "is empty"),
    ("argument-only-equals", "Action: calculator\nAction Input: =", "no value"),
    ("keyword-without-value-in-call", "Action: zoom(image_id=)", "no value"),
    ("keyword-without-value-input", "Action: ocr\nAction Input: image_id=", "no value"),
    ("tool-name-cut-off", "Thought: I need the size\nAction: image_in", "cut off"),
    ("tool-name-cut-off-chinese", "思考：需要计算\n行动：calcul", "cut off"),
    (
        "code-in-the-action-slot",
        f"Action:\n{FENCE}python\nimport math\nprint(math.sqrt(2))\n{FENCE}",
        "code",
    ),
    ("assignment-in-the-action-slot", 'Action: result = calculator("2+2")', "code"),
]
