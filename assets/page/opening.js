(settings) => {
  // On a phone the page opens at the top of the chat: the input's autofocus would scroll the
  // page past it (and open the keyboard over it), so the focus leaves the input.
  const open = () => {
    if (!window.matchMedia(settings.narrow).matches) return;
    const el = document.getElementById("chat");
    if (el) el.scrollIntoView({ block: "start", behavior: "instant" });
    const input = document.querySelector("#input textarea");
    if (input && document.activeElement === input) input.blur();
  };
  // Gradio focuses the input after its first render, which may come after this runs.
  open();
  requestAnimationFrame(open);
  setTimeout(open, 150);
}
