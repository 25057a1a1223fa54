(settings) => {
  const names = settings.imageName;
  const panels = settings.panels;
  let zh = (navigator.language || "").toLowerCase().startsWith("zh");
  const fix = () => {
    waiting = false;
    document.querySelectorAll(".thought-group .title .arrow button:not([inert])")
      .forEach((el) => { el.setAttribute("inert", ""); el.tabIndex = -1; });
    document.querySelectorAll(".image-container > button")
      .forEach((el) => {
        const name = el.getAttribute("aria-label");
        if (!name || name === names.zh || name === names.en)
          el.setAttribute("aria-label", zh ? names.zh : names.en);
      });
    document.querySelectorAll(":is(#chat, #trace) div[aria-label]:not([role])")
      .forEach((el) => el.setAttribute("role", "group"));
    document.querySelectorAll("#settings-notice:not([role])")
      .forEach((el) => el.setAttribute("role", "alert"));
    for (const id of ["chat", "trace"]) {
      const log = document.querySelector(`#${id} [role=log]`);
      const name = (zh ? panels.zh : panels.en)[id];
      if (log && log.getAttribute("aria-label") !== name) log.setAttribute("aria-label", name);
      if (log && id === "trace" && log.getAttribute("aria-live") !== "off")
        log.setAttribute("aria-live", "off");
    }
    document.querySelectorAll(":is(#chat, #trace, #viewer-chat, #viewer-trace) img[alt='']")
      .forEach((el) => {
        const id = decodeURIComponent(el.src).match(new RegExp("/(img_[0-9]+)-[^/]*$"));
        if (id) el.alt = id[1];
      });
    document.querySelectorAll("#input .thumbnails [role=listitem]")
      .forEach((el) => el.removeAttribute("role"));
  };
  let waiting = false;
  new MutationObserver(() => {
    // Before anything else runs (a microtask, once per batch of changes): a frame later, a
    // screen reader or a checker could meet the nameless arrow of a new step in between.
    if (!waiting) { waiting = true; queueMicrotask(fix); }
  }).observe(document.body, { subtree: true, childList: true });
  // Language in Settings changes the page's language (assets/page/language.js).
  window.addEventListener("page-language", (event) => { zh = event.detail === "zh"; fix(); });
  fix();
}
