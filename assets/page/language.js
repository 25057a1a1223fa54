(settings) => {
  // Language in Settings calls this (`ui.page.script.LANGUAGE_JS`).
  window.agentPageLanguage = (language) => {
    const key = String(language || "en").toLowerCase().startsWith("zh") ? "zh" : "en";
    document.documentElement.lang = key === "zh" ? "zh-CN" : "en";
    document.title = settings.titles[key];
    window.dispatchEvent(new CustomEvent("page-language", { detail: key }));
    const gradioLocale = (locale) => {
      const core = /\/assets\/core-[\w-]+\.js(?:[?#]|$)/;
      const loaded = performance.getEntriesByType("resource").map((entry) => entry.name);
      const linked = [...document.querySelectorAll("script[src], link[href]")].map(
        (node) => node.src || node.href,
      );
      const url = [...loaded, ...linked].find((name) => core.test(name));
      if (!url) return;
      import(url)
        .then((module) => module.changeLocale && module.changeLocale(locale))
        .catch(() => {});
    };
    gradioLocale(key === "zh" ? "zh-CN" : "en");
    return language;
  };
}
