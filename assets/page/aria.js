(settings) => {
  let zh = (navigator.language || "").toLowerCase().startsWith("zh");
  const words = settings.words;
  const english = Object.fromEntries(Object.entries(words).map(([en, cn]) => [cn, en]));
  const prefixes = Object.entries(settings.prefixes);
  const said = (name) => {
    if (!zh) {
      if (english[name]) return english[name];
      const back = prefixes.find(([en, cn]) => {
        const [head, tail] = cn.split("{}");
        const fits = name.length > head.length + tail.length;
        return fits && name.startsWith(head) && name.endsWith(tail);
      });
      if (!back) return null;
      const [head, tail] = back[1].split("{}");
      return back[0] + name.slice(head.length, name.length - tail.length);
    }
    if (words[name]) return words[name];
    const found = prefixes.find(([en]) => name.startsWith(en));
    return found ? found[1].replace("{}", name.slice(found[0].length)) : null;
  };
  const footer = settings.footer;
  const footerBack = Object.fromEntries(Object.entries(footer).map(([en, cn]) => [cn, en]));
  const relabel = () => {
    waiting = false;
    for (const attribute of ["aria-label", "title"]) {
      document.querySelectorAll(`[${attribute}]`).forEach((el) => {
        const name = said(el.getAttribute(attribute));
        if (name) el.setAttribute(attribute, name);
      });
    }
    document.querySelectorAll("footer img[alt]").forEach((el) => {
      const name = said(el.getAttribute("alt"));
      if (name) el.setAttribute("alt", name);
    });
    const worded = "footer :is(.show-api, .built-with), [data-testid=upload-text], .wrap > .or";
    document.querySelectorAll(worded).forEach((el) => {
      el.childNodes.forEach((node) => {
        const now = node.nodeType === 3 ? node.textContent.trim() : "";
        const next = now && (zh ? footer[now] : footerBack[now]);
        if (next) node.textContent = node.textContent.replace(now, next);
      });
    });
  };
  let waiting = false;
  new MutationObserver(() => {
    if (!waiting) { waiting = true; requestAnimationFrame(relabel); }
  }).observe(document.body, { subtree: true, childList: true });
  window.addEventListener("page-language", (event) => { zh = event.detail === "zh"; relabel(); });
  if (zh) document.title = settings.title;
  relabel();
}
