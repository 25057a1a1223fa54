// The conversations this browser keeps, in its own storage (the format is ui/conversations/stored.py's).
// Run once as the page loads, with the page's settings; defines window.agentHistory, which
// the page's events call (ui/conversations/panel.py):
//   apply(text)          a patch the server sent: what changed, applied to the storage
//   payload()            what the page sends as it loads: the list, this tab's conversation,
//                        a message sent that the server had not said it took
//   conversation(id)     one kept conversation, as text, to open it again
//   sending(message)     the message leaving the input, kept until the server says it took it
//   lost()               the id of a conversation a patch could not be applied to, once
//   heldElsewhere(id)    whether another open tab has that conversation on its page
//   index()              the list alone, as text, when another tab has changed it
//
// A conversation deleted from the list stays a few seconds under a mark, so that the delete
// can be undone (ui/conversations/undo.py): the patch's "trash", "untrash" and "purge".
// Each conversation has a key of its own, and the list of them is merged entry by entry, so
// tabs do not overwrite each other's; each tab's own conversation is in its sessionStorage.
(settings) => {
  const INDEX = settings.prefix + "index";
  const CONVERSATION = settings.prefix + "c/";
  const CURRENT = settings.prefix + "current";
  const PENDING = settings.prefix + "pending";
  const LOST = settings.prefix + "lost";
  // Which tab has which conversation on its page: a mark per conversation, renewed while the
  // tab is open. A conversation another tab has opens as a copy, and is not deleted under it.
  const OPEN = settings.prefix + "open/";
  // A deleted conversation's mark: its list entry, the tab that deleted it and when. Its key
  // stays until the mark goes; a mark older than TRASH_MS is no tab's to undo any more.
  const TRASH = settings.prefix + "trash/";
  const TRASH_MS = 60000;
  const parse = (text) => {
    try {
      return JSON.parse(text);
    } catch (error) {
      return undefined;
    }
  };
  const TAB_KEY = settings.prefix + "tab";
  const FRESH_MS = 15000;
  // What this page's storage says is its own is only used when it looks like an id: the
  // storage is anyone's to edit, and a 3 MB "id" would go up with every request.
  const ID = /^[0-9a-f]{1,32}$/;
  const validId = (id) => (typeof id === "string" && ID.test(id) ? id : null);
  if (sessionStorage.getItem(CURRENT) !== null && !validId(sessionStorage.getItem(CURRENT))) {
    sessionStorage.removeItem(CURRENT);
  }
  const newTab = () => Math.random().toString(16).slice(2, 14);
  const storedKeys = () => {
    const keys = [];
    for (let i = 0; i < localStorage.length; i += 1) keys.push(localStorage.key(i));
    return keys.filter(Boolean);
  };
  const inherited = validId(sessionStorage.getItem(TAB_KEY));
  // A duplicated tab inherits its original's sessionStorage, tab id included. A page that
  // was not reloaded and finds a fresh mark under that tab id is such a copy (the original
  // is still open): it becomes a tab of its own, with a copy of the conversation.
  const timing = typeof performance !== "undefined" && performance.getEntriesByType
    ? performance.getEntriesByType("navigation")[0] : null;
  const reloaded = !timing || timing.type === "reload";
  const duplicated = !reloaded && Boolean(inherited) && storedKeys().some((key) => {
    if (!key.startsWith(OPEN)) return false;
    const mark = parse(localStorage.getItem(key));
    return Boolean(mark && mark.tab === inherited && Date.now() - (mark.at || 0) < FRESH_MS);
  });
  const TAB = inherited && !duplicated ? inherited : newTab();
  sessionStorage.setItem(TAB_KEY, TAB);
  let lastSeq = 0;
  // A message the tab's previous page sent and the server had not said it took: the page
  // sends it up as it loads (one this page sends meanwhile is its own).
  const previousPending = sessionStorage.getItem(PENDING);

  const emptyIndex = () => ({
    format: settings.format, version: settings.version, conversations: [],
  });

  // The list as it is now (another tab may have changed it); one that does not read is empty.
  const readIndex = () => {
    const raw = localStorage.getItem(INDEX);
    const index = raw !== null && raw.length <= settings.maxBytes ? parse(raw) : null;
    if (!index || typeof index !== "object" || !Array.isArray(index.conversations)) {
      return emptyIndex();
    }
    // An entry that is not a conversation's (null, a number, an id that is none) is dropped.
    index.conversations = index.conversations.filter(
      (e) => e && typeof e === "object" && validId(e.id),
    );
    return index;
  };

  // Past the list's bound, the oldest conversation that no open tab shows goes (a tab left in
  // the background still has its own when it is reloaded); only when every one is open does
  // the oldest go all the same.
  const writeIndex = (index) => {
    index.conversations.sort((a, b) => (b.saved_at || 0) - (a.saved_at || 0));
    const kept = [];
    for (const entry of index.conversations) {
      if (!kept.some((e) => e.id === entry.id)) kept.push(entry);
    }
    while (kept.length > settings.maxConversations) {
      const unshown = kept.findLastIndex((e) => !shown(e.id));
      const [gone] = kept.splice(unshown >= 0 ? unshown : kept.length - 1, 1);
      localStorage.removeItem(CONVERSATION + gone.id);
    }
    index.conversations = kept;
    try {
      localStorage.setItem(INDEX, JSON.stringify(index));
    } catch (error) {
      console.warn("The list of conversations could not be kept:", error);
    }
  };

  // Write `text` under `key`; when the browser's room for this site is full, the oldest
  // other conversations go first.
  const store = (key, text, id) => {
    for (;;) {
      try {
        localStorage.setItem(key, text);
        return true;
      } catch (error) {
        if (purgeTrash(true)) continue;  // deleted conversations make room first
        const index = readIndex();
        const others = index.conversations.filter((e) => e.id !== id && !shown(e.id));
        if (!others.length) {
          console.warn("This conversation is too large for this browser to keep:", error);
          return false;
        }
        const oldest = others[others.length - 1];
        localStorage.removeItem(CONVERSATION + oldest.id);
        index.conversations = index.conversations.filter((e) => e.id !== oldest.id);
        writeIndex(index);
      }
    }
  };

  const put = (op) => {
    const key = CONVERSATION + op.id;
    let saved = op.whole ? null : parse(localStorage.getItem(key));
    if (!saved || typeof saved !== "object") saved = null;
    const lists = {};
    for (const [name, [cut, keep, items]] of Object.entries(op.lists)) {
      const had = saved && Array.isArray(saved[name]) ? saved[name].slice(cut) : [];
      if (had.length < keep) {
        // What the server builds on is not here (another tab deleted it, or room was made):
        // the next save sends the conversation whole.
        sessionStorage.setItem(LOST, op.id);
        return;
      }
      let added = items;
      const first = items[0];
      if (first && first.events_from !== undefined) {
        // The turn the browser has next, continued: the events it holds (but the last, which
        // may have grown) stay, the rest follow.
        const held = had[keep];
        if (!held || !Array.isArray(held.events) || held.events.length < first.events_from) {
          sessionStorage.setItem(LOST, op.id);
          return;
        }
        const {events_from: from, ...turn} = first;
        turn.events = held.events.slice(0, from).concat(turn.events);
        added = [turn].concat(items.slice(1));
      }
      lists[name] = had.slice(0, keep).concat(added);
    }
    const conversation = Object.assign({}, saved || {}, op.meta, lists, {id: op.id});
    sessionStorage.setItem(CURRENT, op.id);
    if (!store(key, JSON.stringify(conversation), op.id)) return;
    if (op.taken) sessionStorage.removeItem(PENDING);
    const index = readIndex();
    index.conversations = index.conversations.filter((e) => e.id !== op.id);
    index.conversations.unshift({
      id: op.id, title: conversation.title || "", saved_at: conversation.saved_at || 0,
      turns: conversation.turns.length,
    });
    writeIndex(index);
  };

  const readMark = (id) => (validId(id) ? parse(localStorage.getItem(OPEN + id)) || null : null);

  const heldElsewhere = (id) => {
    const mark = id ? readMark(id) : null;
    return Boolean(mark && mark.tab !== TAB && Date.now() - (mark.at || 0) < FRESH_MS);
  };

  // Whether a tab (this one too) has shown the conversation lately. Longer than FRESH_MS: a
  // browser runs a background tab's timers as seldom as once a minute.
  const SHOWN_MS = 150000;
  const shown = (id) => {
    if (id === validId(sessionStorage.getItem(CURRENT))) return true;
    const mark = readMark(id);
    return Boolean(mark && Date.now() - (mark.at || 0) < SHOWN_MS);
  };

  let marked = null;
  const mark = () => {
    const id = validId(sessionStorage.getItem(CURRENT));
    if (marked && marked !== id) {
      const old = readMark(marked);
      if (old && old.tab === TAB) localStorage.removeItem(OPEN + marked);
    }
    marked = id;
    if (!id || heldElsewhere(id)) return;
    try {
      localStorage.setItem(OPEN + id, JSON.stringify({tab: TAB, at: Date.now()}));
    } catch (error) {
      // A full storage keeps conversations first; the mark is only a courtesy to other tabs.
    }
  };

  const newId = () =>
    Array.from({length: 12}, () => Math.floor(Math.random() * 16).toString(16)).join("");

  // A kept conversation to open; one another tab has on its page comes as a copy of its own.
  // A copy goes on under an id of its own and is kept at once: the server's next change
  // builds on what it sent up, which the browser must then hold under that id.
  const copyOf = (saved, id) => {
    const copy = Object.assign(saved, {id: newId(), copy_of: id});
    if (store(CONVERSATION + copy.id, JSON.stringify(copy), copy.id)) {
      const index = readIndex();
      index.conversations.unshift({
        id: copy.id, title: copy.title || "", saved_at: copy.saved_at || 0,
        turns: Array.isArray(copy.turns) ? copy.turns.length : 0,
      });
      writeIndex(index);
    }
    return copy;
  };

  const conversation = (id) => {
    const text = id ? localStorage.getItem(CONVERSATION + id) || "" : "";
    if (!text || !heldElsewhere(id)) return text;
    const saved = parse(text);
    if (!saved || typeof saved !== "object") return text;
    return JSON.stringify(copyOf(saved, id));
  };

  const drop = (id) => {
    localStorage.removeItem(CONVERSATION + id);
    localStorage.removeItem(TRASH + id);
    const index = readIndex();
    index.conversations = index.conversations.filter((e) => e.id !== id);
    writeIndex(index);
  };

  // Delete, undoably: the entry leaves the list, the conversation stays under a mark.
  const trash = (id) => {
    const index = readIndex();
    const entry = index.conversations.find((e) => e.id === id);
    const mark = JSON.stringify({tab: TAB, at: Date.now(), entry});
    try {
      if (!entry || localStorage.getItem(CONVERSATION + id) === null) throw new Error("gone");
      localStorage.setItem(TRASH + id, mark);
    } catch (error) {
      drop(id);
      return;
    }
    index.conversations = index.conversations.filter((e) => e.id !== id);
    writeIndex(index);
  };

  // Undo: back in the list; false if it is no longer kept.
  const untrash = (id) => {
    const mark = validId(id) ? parse(localStorage.getItem(TRASH + id)) : null;
    localStorage.removeItem(TRASH + id);
    const entry = mark && mark.entry;
    if (!entry || entry.id !== id || localStorage.getItem(CONVERSATION + id) === null) {
      return false;
    }
    const index = readIndex();
    index.conversations = index.conversations.filter((e) => e.id !== id).concat([entry]);
    writeIndex(index);
    return true;
  };

  const purge = (id) => {
    if (localStorage.getItem(TRASH + id) === null) return;
    localStorage.removeItem(CONVERSATION + id);
    localStorage.removeItem(TRASH + id);
  };

  // The marks no tab can undo any more (this tab's earlier page's, and old ones), or all of
  // them (`everything`); whether there were any.
  const purgeTrash = (everything) => {
    let found = false;
    for (const key of storedKeys()) {
      if (!key.startsWith(TRASH)) continue;
      const mark = parse(localStorage.getItem(key));
      const fresh = mark && mark.tab !== TAB && Date.now() - (mark.at || 0) < TRASH_MS;
      if (everything || !fresh) {
        localStorage.removeItem(CONVERSATION + key.slice(TRASH.length));
        localStorage.removeItem(key);
        found = true;
      }
    }
    return found;
  };

  const apply = (text) => {
    const patch = parse(text);
    if (!patch || typeof patch.seq !== "number" || patch.seq <= lastSeq) return;
    lastSeq = patch.seq;
    for (const op of patch.ops || []) {
      if (op.op === "put") put(op);
      else if (op.op === "drop") drop(op.id);
      else if (op.op === "trash") trash(op.id);
      else if (op.op === "untrash" && !untrash(op.id)) relistSoon();
      else if (op.op === "purge") purge(op.id);
      else if (op.op === "current") sessionStorage.setItem(CURRENT, op.id);
      else if (op.op === "untaken") sessionStorage.removeItem(PENDING);
      else if (op.op === "prefs") {
        const index = readIndex();
        index.prefs = op.prefs;
        writeIndex(index);
      }
    }
    mark();
  };

  // A conversation key the list does not name (a tab wrote it as another wrote the list)
  // goes back in the list; an entry whose conversation has gone leaves it.
  const mend = (index) => {
    const named = new Set(index.conversations.map((e) => e.id));
    let changed = false;
    let removed = false;
    for (const key of storedKeys()) {
      if (!key.startsWith(CONVERSATION)) continue;
      const id = key.slice(CONVERSATION.length);
      const text = localStorage.getItem(key) || "";
      if (!validId(id) || text.length > settings.maxBytes) {
        // Nothing the page wrote: it could never be sent up, only take the room of others.
        localStorage.removeItem(key);
        removed = true;
        continue;
      }
      if (named.has(id) || localStorage.getItem(TRASH + id) !== null) continue;
      const conversation = parse(text);
      if (!conversation || !Array.isArray(conversation.turns)) continue;
      index.conversations.push({
        id, title: conversation.title || "", saved_at: conversation.saved_at || 0,
        turns: conversation.turns.length,
      });
      changed = true;
    }
    const before = index.conversations.length;
    index.conversations = index.conversations.filter(
      (e) => e && localStorage.getItem(CONVERSATION + e.id) !== null,
    );
    if (changed || index.conversations.length !== before) writeIndex(index);
    return removed;
  };

  // The browser's time zone, for the times in the list: its name, and its offset from UTC now
  // (minutes east) for a server that does not know the name.
  const zone = () => {
    try {
      const name = Intl.DateTimeFormat().resolvedOptions().timeZone;
      return {zone: name || null, offset: -new Date().getTimezoneOffset()};
    } catch (error) {
      return {};
    }
  };

  const payload = () => {
    let unreadable = false;
    purgeTrash(false);
    const rawIndex = localStorage.getItem(INDEX);
    if (rawIndex !== null) {
      const listed = rawIndex.length <= settings.maxBytes ? parse(rawIndex) : undefined;
      unreadable = !listed || !Array.isArray(listed.conversations);
      if (unreadable || listed.conversations.some((e) => !e || !validId(e.id))) {
        writeIndex(readIndex());  // what reads is kept; the rest goes, and is said once
        unreadable = true;
      }
    }
    if (mend(readIndex())) unreadable = true;
    const index = readIndex();
    let id = validId(sessionStorage.getItem(CURRENT));
    let current = null;
    if (id) {
      const raw = localStorage.getItem(CONVERSATION + id);
      current = raw === null ? null : parse(raw);
      if (raw !== null && (current === undefined || current === null)) {
        unreadable = true;
        current = null;
      } else if (current && heldElsewhere(id)) {
        // A duplicated tab: the original shows this conversation; this one goes on with a
        // copy of its own.
        current = copyOf(current, id);
        id = current.id;
        sessionStorage.setItem(CURRENT, id);
      }
    }
    const sent = sessionStorage.getItem(PENDING);
    const pending = sent !== null && sent === previousPending ? parse(sent) || null : null;
    return JSON.stringify({
      format: settings.format, version: settings.version, index, current_id: id, current,
      pending, unreadable, ...zone(),
    });
  };

  // Another tab changed the list (a turn saved, a conversation deleted): the page asks the
  // server to show it again, once the other tab's burst of saves has settled.
  const LIST_SETTLE_MS = 400;
  let relist = null;
  function relistSoon() {
    if (typeof document === "undefined") return;
    clearTimeout(relist);
    relist = setTimeout(() => {
      const button = document.getElementById(settings.refreshId);
      if (button) button.click();
    }, LIST_SETTLE_MS);
  }
  const listChanged = (event) => {
    if (event.storageArea !== localStorage || (event.key !== null && event.key !== INDEX)) return;
    relistSoon();
  };

  if (typeof window.addEventListener === "function") {
    setInterval(mark, FRESH_MS / 3);
    window.addEventListener("storage", listChanged);
    window.addEventListener("pagehide", () => {
      const old = marked ? readMark(marked) : null;
      if (old && old.tab === TAB) localStorage.removeItem(OPEN + marked);
    });
  }

  window.agentHistory = {
    apply,
    payload,
    conversation,
    heldElsewhere,
    index: () => JSON.stringify(readIndex()),
    sending: (message) => {
      const files = ((message && message.files) || []).map((f) => (f && f.path) || "");
      const text = (message && message.text) || "";
      const id = sessionStorage.getItem(CURRENT);
      sessionStorage.setItem(PENDING, JSON.stringify({id, text, files}));
    },
    lost: () => {
      const id = sessionStorage.getItem(LOST) || "";
      sessionStorage.removeItem(LOST);
      return id;
    },
  };
}
