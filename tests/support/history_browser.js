// A browser's storage for the page's own script (assets/history.js), in Node, for the tests
// that call the page's handlers without a page (tests/support/history_browser.py). The tabs
// share one localStorage and each has its own sessionStorage, as in a browser; a reload runs
// the script again in its tab. One JSON command a line on stdin, one JSON answer a line out.
"use strict";
const fs = require("fs");
const readline = require("readline");

const [scriptPath, settingsJson, limitText] = process.argv.slice(2);
const factory = eval(fs.readFileSync(scriptPath, "utf8"));
const settings = JSON.parse(settingsJson);

class QuotaExceededError extends Error {
  constructor() {
    super("The quota has been exceeded.");
    this.name = "QuotaExceededError";
  }
}

// Web Storage as browsers have it; the room is counted in characters of keys and values.
class Storage {
  constructor(limit) {
    this.items = new Map();
    this.limit = limit;
  }
  get length() {
    return this.items.size;
  }
  key(i) {
    return [...this.items.keys()][i] ?? null;
  }
  getItem(key) {
    return this.items.has(key) ? this.items.get(key) : null;
  }
  setItem(key, value) {
    value = String(value);
    let used = key.length + value.length;
    for (const [k, v] of this.items) if (k !== key) used += k.length + v.length;
    if (used > this.limit) throw new QuotaExceededError();
    this.items.set(key, value);
  }
  removeItem(key) {
    this.items.delete(key);
  }
}

globalThis.localStorage = new Storage(Number(limitText) || 5_000_000);
const tabs = new Map();

const start = (tab) => {
  globalThis.window = {};
  globalThis.sessionStorage = tab.session;
  factory(settings);
  tab.history = globalThis.window.agentHistory;
};

const run = (command) => {
  if (command.cmd === "dump") {
    const sessions = {};
    for (const [name, tab] of tabs) sessions[name] = Object.fromEntries(tab.session.items);
    return {local: Object.fromEntries(localStorage.items), sessions};
  }
  if (command.cmd === "set") {
    if (command.value === null) localStorage.removeItem(command.key);
    else localStorage.setItem(command.key, command.value);
    return null;
  }
  let tab = tabs.get(command.tab);
  if (!tab) {
    tab = {session: new Storage(5_000_000)};
    tabs.set(command.tab, tab);
    start(tab);
  }
  if (command.cmd === "reload") {
    start(tab);
    return null;
  }
  globalThis.sessionStorage = tab.session;
  const result = tab.history[command.cmd](...(command.args || []));
  return result === undefined ? null : result;
};

const lines = readline.createInterface({input: process.stdin});
lines.on("line", (line) => {
  let answer;
  try {
    answer = {ok: run(JSON.parse(line))};
  } catch (error) {
    answer = {error: String((error && error.stack) || error)};
  }
  process.stdout.write(JSON.stringify(answer) + "\n");
});
