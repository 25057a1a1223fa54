(settings) => {
  document.addEventListener("change", (event) => {
    const input = event.target;
    if (!(input instanceof HTMLInputElement) || input.type !== "file") return;
    if (!input.closest("#input")) return;
    // Gradio has taken `input.files` (a list of its own) by the time this runs.
    setTimeout(() => { input.value = ""; }, 0);
  }, true);
}
