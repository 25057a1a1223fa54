(settings) => {
  const text = settings.text;
  const tooBig = new RegExp(settings.tooBig);
  const wrongType = new RegExp(settings.wrongType);
  const titles = Object.values(text).flatMap((t) => Object.entries(t.titles));
  const rewrite = () => {
    waiting = false;
    const zh = (document.documentElement.lang || navigator.language || "")
      .toLowerCase().startsWith("zh");
    const said = zh ? text.zh : text.en;
    document.querySelectorAll("[data-testid=toast-text]").forEach((el) => {
      const found = el.textContent.trim().match(tooBig);
      if (found) el.textContent = said.too_big.replace("{names}", found[1]);
      const wrong = el.textContent.trim().match(wrongType);
      if (wrong) {
        const sentence = /\.zip\b/.test(wrong[2]) ? said.not_conversation : said.wrong_type;
        el.textContent = sentence.replace("{names}", wrong[1]);
      }
    });
    document.querySelectorAll(".toast-title").forEach((el) => {
      const now = el.textContent.trim();
      const match = titles.find(([, word]) => word === now);
      if (match && said.titles[match[0]] !== now) el.textContent = said.titles[match[0]];
    });
  };
  let waiting = false;
  // While a toast shows, at once, before the browser paints it in Gradio's words; else at
  // most once a frame.
  new MutationObserver(() => {
    if (document.querySelector(".toast-body")) rewrite();
    else if (!waiting) { waiting = true; requestAnimationFrame(rewrite); }
  }).observe(document.body, { subtree: true, childList: true, characterData: true });
}
