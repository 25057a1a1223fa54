"""Everything the offline model says, in English and Chinese."""

from __future__ import annotations

TEXT: dict[str, dict[str, str]] = {
    "en": {
        "pick": "The request matches the {tool} tool.",
        "next": "The result has a new image; {tool} can look at it next.",
        "done": "I have what I need to answer.",
        "failed": "The tool could not do it.",
        "answer_failed": "I could not finish that: {observation}",
        "no_tool": "None of my tools fits this request.",
        "sorry": "Sorry, I cannot answer your query.",
        "sorry_image": "Sorry, I cannot answer that: as the offline demo model I cannot look at "
        "pictures by myself. I can read the text in an image, zoom into part of it, list its "
        "colours, scan QR codes or show the photo's details; ask for one of those, or connect a "
        "real model in Settings.",
        "vague": "I cannot tell what the user wants.",
        "intent": "What would you like me to do? For example: read the text in an image, zoom "
        "into part of it, convert units, calculate, or tell the time in a city.",
        "end_thought": "The user wants to end the conversation.",
        "end": "Goodbye! Come back any time.",
        "cancel_thought": "The user dropped the task.",
        "cancel": "OK, I've set that aside. What else can I do for you?",
        # Finding the image meant.
        "look": "The user means the {content}; I check whether {image} shows one.",
        "retry": "There was nothing in {previous}; {image} may be the one the user meant.",
        "which_thought": "The user named an image that is not in this conversation.",
        "attach_thought": "The request needs an image, and there is none yet.",
        "no_such_position": "You have uploaded {count} in this conversation, so there is no "
        "{position} one. Which one do you mean? For example, say “the first image”.",
        "no_uploads": "You have not uploaded an image in this conversation yet; attach one and "
        "ask again.",
        "no_such_id": "There is no {image} in this conversation; the images here are {images}.",
        "attach": "Please attach the image first: there is no image in this conversation yet.",
        "gone_thought": "The image the request needs is no longer on the server.",
        "gone": "{images} is no longer available on the server, so I cannot look at it again; "
        "please attach it once more.",
        "each": "The user means every image; {tool} on {image} ({n} of {count}).",
        "each_more": "(I looked at {shown}. For the others, send \u201c{again}: {rest}\u201d.)",
        "refused_thought": "The user sent an image, but it was refused before it reached me.",
        "refused": "The image you sent was refused, so I could not look at it: {reasons}",
        "refused_note": "(The image you sent was not used: {reasons})",
        "twice_note": "({reasons})",
        "image_count": "{n} image",
        "image_count_many": "{n} images",
        "from_end": "{position}-to-last",
        # Saying which image was used.
        "used_position": "({image} is the {position} image you uploaded.)",
        "used_pointer": "(I used {image}, the image we were talking about.)",
        "used_content": "({image} looks like the {content}.)",
        "used_guess": "(None of {images} looked like the {content}, so I used {image}.)",
        "used_newest": "(I used {image}, the newest image.)",
        "used_sent": "(I used {image}, the last image you sent.)",
        "none_before": "(There was nothing in {images}.)",
        # Results.
        "code_one": "The {kind} in {image} says: {text}",
        "code_many": "I found {n} codes in {image}:\n{lines}",
        "qr": "QR code",
        "barcode": "{type} code",
        "text_in": "The text in {image} reads:\n{lines}",
        "doubtful": "(?) marks a doubtful reading.",
        "no_code": "I found no QR code or barcode in {images}. If a code is small or blurred, "
        "zoom into it first and scan the zoomed image.",
        "no_text": "I found no text in {images}. If there is small print, zoom into it and read "
        "the zoomed image.",
        "nothing_in": "{observation} (I looked in {images}.)",
        # Helping with an image when no tool was asked for.
        "help_thought": "No tool was asked for, but there is an image; reading its text is "
        "what I can do.",
        "help_code_thought": "A QR code or barcode in {image} may say more.",
        "help_text": "I can't understand pictures by myself, so I can only show what is "
        "written. Here is the text I read in {image}:\n{lines}",
        "help_relevant": "This may answer your question:\n{lines}",
        "help_code": "{image} also has a {kind} that says: {text}",
        "help_code_only": "I can't understand pictures by myself, and I found no text in "
        "{image}, but it has a {kind} that says: {text}",
        "help_nothing": "I can't understand pictures by myself, and I found no text or code in "
        "{images}. I can zoom into part of an image, list its colours or show the photo's "
        "details; to ask about what a picture shows, connect a real model in Settings.",
        "help_no_text": "I can't understand pictures by myself, and I found no text in {images}. "
        "If there is small print, ask me to zoom into it; to ask about what a picture shows, "
        "connect a real model in Settings.",
        # The line that answers the question asked about an image.
        "picked_from": "{answer} ({image}: {lines}).",
        "picked_also_missing": "{answer} ({image}: {lines}). The text does not show {missing}.",
        "picked_none": "I read the text in {image}, but it does not show {missing}. Ask "
        "\u201cwhat does it say?\u201d to see all of it.",
        "picked_lines": "What {image} says about that: {lines}.",
        "picked_nothing": "I can't understand pictures by myself, and nothing written in {image} "
        "answers that. Ask \u201cwhat does it say?\u201d to see all of its text.",
        "quote": "\u201c{line}\u201d",
        "quotes": ", ",
        "parts": ", ",
        "missing_list": " or ",
        "say_total": "The total is {value}",
        "say_price": "It cost {value}",
        "say_gate": "Gate {value}",
        "say_closes": "closes {value}",
        "say_boarding": "boarding {value}",
        "say_departure": "departs {value}",
        "say_seat": "seat {value}",
        "say_platform": "platform {value}",
        "say_terminal": "terminal {value}",
        "say_flight": "flight {value}",
        "say_expiry": "best before {value}",
        "say_hours_range": "open {value}",
        "say_hours_closes": "closes {value}",
        "say_hours_list": "opening hours: {value}",
        "say_day_range": "{day} {value}",
        "say_day_closes": "{day}: closes {value}",
        "say_day_closed": "{day}: closed",
        "miss_total": "a total",
        "miss_price": "that price",
        "miss_gate": "a gate",
        "miss_closes": "a closing time",
        "miss_boarding": "a boarding time",
        "miss_departure": "a departure time",
        "miss_seat": "a seat",
        "miss_platform": "a platform",
        "miss_terminal": "a terminal",
        "miss_flight": "a flight number",
        "miss_expiry": "a date to use it by",
        "miss_hours": "opening hours",
        "miss_day_hours": "the hours on {day}",
        "days": "Monday Tuesday Wednesday Thursday Friday Saturday Sunday",
        "and": " and ",
        "or": " or ",
    },
    "zh": {
        "pick": "这个请求适合使用 {tool} 工具。",
        "next": "结果中有一张新图片，接下来可以用 {tool} 查看。",
        "done": "我已经有足够的信息来回答。",
        "failed": "工具没能完成。",
        "answer_failed": "没能完成：{observation}",
        "no_tool": "我的工具都不适合这个请求。",
        "sorry": "抱歉，我无法回答您的问题。",
        "sorry_image": "抱歉，这个问题我回答不了：我是离线演示模型，自己看不懂图片。我可以识别图片"
        "中的文字、放大局部、列出颜色、扫描二维码或显示照片信息；请选择其中一项，或在设置中连接真"
        "实模型。",
        "vague": "我无法确定用户想做什么。",
        "intent": "请问您想让我做什么？例如：识别图片中的文字、放大图片局部、换算单位、计算，或查询"
        "某个城市的时间。",
        "end_thought": "用户想结束对话。",
        "end": "再见！欢迎随时再来。",
        "cancel_thought": "用户放弃了这个任务。",
        "cancel": "好的，这个任务先放下了。还有什么可以帮您？",
        "look": "用户指的是{content}；先看看 {image} 是不是。",
        "retry": "{previous} 中没有找到；用户指的可能是 {image}。",
        "which_thought": "用户说的图片不在这次对话中。",
        "attach_thought": "这个请求需要图片，但还没有图片。",
        "no_such_position": "这次对话中您上传了 {count}，没有{position}。您指的是哪一张？例如可以说"
        "“第一张”。",
        "no_uploads": "这次对话中您还没有上传图片；请先上传一张再问。",
        "no_such_id": "这次对话中没有 {image}；现有的图片是 {images}。",
        "attach": "请先上传图片：这次对话里还没有图片。",
        "gone_thought": "请求需要的图片已不在服务器上。",
        "gone": "{images} 已不在服务器上，我无法再查看；请重新上传。",
        "each": "用户指的是每一张图片；对 {image} 使用 {tool}（第 {n} 张，共 {count} 张）。",
        "each_more": "（我看了 {shown}。其余的请再发一条：“{again}：{rest}”）",
        "refused_thought": "用户发了图片，但它在到达我之前就被拒绝了。",
        "refused": "您发送的图片被拒绝了，所以我没能查看：{reasons}",
        "refused_note": "（您发送的图片未被使用：{reasons}）",
        "twice_note": "（{reasons}）",
        "image_count": "{n} 张图片",
        "image_count_many": "{n} 张图片",
        "from_end": "倒数{position}",
        "used_position": "（{image} 是您上传的{position}图片。）",
        "used_pointer": "（我用的是 {image}，也就是刚才说的那张图片。）",
        "used_content": "（{image} 看起来是{content}。）",
        "used_guess": "（{images} 都不像{content}，所以我用了 {image}。）",
        "used_newest": "（我用的是最新的图片 {image}。）",
        "used_sent": "（我用的是您刚发的图片 {image}。）",
        "none_before": "（{images} 中没有找到。）",
        "code_one": "{image} 中的{kind}内容是：{text}",
        "code_many": "{image} 中有 {n} 个码：\n{lines}",
        "qr": "二维码",
        "barcode": "{type} 条码",
        "text_in": "{image} 中的文字：\n{lines}",
        "doubtful": "（?）表示这一行识别得没有把握。",
        "no_code": "在 {images} 中没有找到二维码或条形码。如果码很小或模糊，请先放大再扫描。",
        "no_text": "在 {images} 中没有找到文字。如果有小字，请先放大再识别。",
        "nothing_in": "{observation}（查看了 {images}。）",
        "help_thought": "没有指定工具，但有图片；我能做的是识别其中的文字。",
        "help_code_thought": "{image} 中的二维码或条形码可能还有更多信息。",
        "help_text": "我自己看不懂图片，只能告诉您上面写了什么。这是我在 {image} 中读到的文字：\n"
        "{lines}",
        "help_relevant": "可能与您的问题有关的是：\n{lines}",
        "help_code": "{image} 中还有一个{kind}，内容是：{text}",
        "help_code_only": "我自己看不懂图片，在 {image} 中也没有找到文字，但其中有一个{kind}，内容"
        "是：{text}",
        "help_nothing": "我自己看不懂图片，在 {images} 中也没有找到文字或二维码。我可以放大图片局"
        "部、列出颜色或显示照片信息；如需理解图片内容，请在设置中连接真实模型。",
        "help_no_text": "我自己看不懂图片，在 {images} 中也没有找到文字。如果有小字，可以让我先放大；"
        "如需理解图片内容，请在设置中连接真实模型。",
        "picked_from": "{answer}（{image}：{lines}）。",
        "picked_also_missing": "{answer}（{image}：{lines}）。文字中没有{missing}。",
        "picked_none": "我读了 {image} 中的文字，但其中没有{missing}。想看全部文字，可以问“上面写了"
        "什么？”",
        "picked_lines": "{image} 中与此有关的文字：{lines}。",
        "picked_nothing": "我自己看不懂图片，{image} 中写的内容也回答不了这个问题。想看全部文字，可以"
        "问“上面写了什么？”",
        "quote": "“{line}”",
        "quotes": "、",
        "parts": "，",
        "missing_list": "或",
        "say_total": "合计 {value}",
        "say_price": "价格是 {value}",
        "say_gate": "登机口 {value}",
        "say_closes": "{value} 关闭",
        "say_boarding": "{value} 开始登机",
        "say_departure": "{value} 出发",
        "say_seat": "座位 {value}",
        "say_platform": "站台 {value}",
        "say_terminal": "航站楼 {value}",
        "say_flight": "航班 {value}",
        "say_expiry": "保质期至 {value}",
        "say_hours_range": "营业时间 {value}",
        "say_hours_closes": "{value} 关门",
        "say_hours_list": "营业时间：{value}",
        "say_day_range": "{day} {value}",
        "say_day_closes": "{day} {value} 关门",
        "say_day_closed": "{day}休息",
        "miss_total": "合计金额",
        "miss_price": "这个价格",
        "miss_gate": "登机口",
        "miss_closes": "关闭时间",
        "miss_boarding": "登机时间",
        "miss_departure": "出发时间",
        "miss_seat": "座位号",
        "miss_platform": "站台",
        "miss_terminal": "航站楼",
        "miss_flight": "航班号",
        "miss_expiry": "保质期",
        "miss_hours": "营业时间",
        "miss_day_hours": "{day}的营业时间",
        "days": "周一 周二 周三 周四 周五 周六 周日",
        "and": " 和 ",
        "or": " 或 ",
    },
}

CONTENT = {
    "en": {
        "code": "QR code or barcode",
        "receipt": "receipt",
        "sign": "sign",
        "label": "label",
        "photo": "photo",
    },
    "zh": {
        "code": "二维码或条形码",
        "receipt": "小票",
        "sign": "标牌",
        "label": "标签",
        "photo": "照片",
    },
}

_ORDINALS = (
    "first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth",
    "eleventh", "twelfth",
)  # fmt: skip


def words_for(language: str) -> dict[str, str]:
    return TEXT["zh" if language.startswith("zh") else "en"]


def position_words(number: int, language: str) -> str:
    """1 -> "first" / "第 1 张"; -1 -> "last" / "最后一张"; -3 -> "third from the end"."""
    zh = language.startswith("zh")
    if number == -1:
        return "最后一张" if zh else "last"
    count = abs(number)
    if zh:
        spelled = f"第 {count} 张"
    elif 1 <= count <= len(_ORDINALS):
        spelled = _ORDINALS[count - 1]
    else:
        suffix = (
            "th" if 10 <= count % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(count % 10, "th")
        )
        spelled = f"{count}{suffix}"
    return words_for(language)["from_end"].format(position=spelled) if number < 0 else spelled


def listing(items: list[str], language: str, joiner: str = "and") -> str:
    """ "img_3, img_2 and img_1"; in Chinese "img_3、img_2和img_1"."""
    words = words_for(language)
    if len(items) <= 1:
        return "".join(items)
    comma = "、" if language.startswith("zh") else ", "
    return comma.join(items[:-1]) + words[joiner] + items[-1]


def image_count(count: int, language: str) -> str:
    words = words_for(language)
    return words["image_count" if count == 1 else "image_count_many"].format(n=count)
