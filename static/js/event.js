// The event page, kept live. Every "event" frame from /ws/events/<slug>/ (a registration, a
// result, a new round...) re-reads the page's live sections from /events/<slug>/live/ and swaps
// each one in, keeping the scroll position. A section the visitor is using (focus inside it, or a
// form in it with something typed or chosen) is left alone until they leave it, so an organizer
// never loses what they are typing.

import { connect } from "./socket.js";

const app = document.getElementById("event-app");
const connection = document.getElementById("connection");
// Bursts of changes (a round ends: results, standings, the next round) make one re-read.
const SETTLE_MS = 200;
let timer = null;
let reading = false;
let again = false;
const waiting = new Map(); // section id -> its newer version, held while the section is in use

function edited(section) {
  return [...section.querySelectorAll("input, textarea, select")].some((field) => {
    if (field.type === "hidden" || field.type === "submit") return false;
    if (field.tagName === "SELECT") return [...field.options].some((o) => o.selected !== o.defaultSelected);
    if (field.type === "checkbox" || field.type === "radio") return field.checked !== field.defaultChecked;
    return field.value !== field.defaultValue;
  });
}

function inUse(section) {
  return section.contains(document.activeElement) || edited(section);
}

// The first live section still on screen, and where it sits: kept there after a swap.
function anchor() {
  const sections = [...document.querySelectorAll("[data-live]")].filter((s) => !s.hidden);
  const first = sections.find((s) => s.getBoundingClientRect().bottom > 0);
  return first ? { id: first.id, top: first.getBoundingClientRect().top } : null;
}

function swap(fresh) {
  const mark = anchor();
  for (const [id, section] of fresh) {
    const current = document.getElementById(id);
    if (!current) continue;
    if (inUse(current)) {
      waiting.set(id, section);
      continue;
    }
    waiting.delete(id);
    current.replaceWith(section);
  }
  if (mark) {
    const moved = document.getElementById(mark.id);
    if (moved) window.scrollBy(0, moved.getBoundingClientRect().top - mark.top);
  }
}

async function refresh() {
  if (reading) {
    again = true;
    return;
  }
  reading = true;
  try {
    const response = await fetch(app.dataset.liveUrl, { credentials: "same-origin" });
    if (response.ok) {
      const doc = new DOMParser().parseFromString(await response.text(), "text/html");
      swap(new Map([...doc.querySelectorAll("[data-live]")].map((s) => [s.id, document.importNode(s, true)])));
      app.dataset.updates = String(Number(app.dataset.updates || 0) + 1);
    }
  } finally {
    reading = false;
    if (again) {
      again = false;
      refresh();
    }
  }
}

// A refused form comes back after a redirect with an error message and empty fields: what was
// typed is kept in this tab's session storage when a form is sent, and put back into the same
// form if the page that follows says it was refused (dropped either way).
const SENT = "event-form-sent";

function remember(form) {
  const fields = [...form.elements]
    .filter((f) => f.name && f.name !== "csrfmiddlewaretoken" && !["submit", "hidden"].includes(f.type))
    .map((f) => [f.id, f.type === "checkbox" ? String(f.checked) : f.value]);
  sessionStorage.setItem(SENT, JSON.stringify({ action: form.getAttribute("action"), fields }));
}

function restore() {
  const sent = JSON.parse(sessionStorage.getItem(SENT) || "null");
  sessionStorage.removeItem(SENT);
  if (!sent || !document.querySelector(".messages .error")) return;
  const form = [...document.forms].find((f) => f.getAttribute("action") === sent.action);
  if (!form) return;
  for (const [id, value] of sent.fields) {
    const field = id && document.getElementById(id);
    if (!field || !form.contains(field)) continue;
    if (field.type === "checkbox") field.checked = value === "true";
    else field.value = value;
  }
  const first = sent.fields.map(([id]) => document.getElementById(id)).find(Boolean);
  if (first) first.focus();
}

document.addEventListener("submit", (e) => {
  if (e.target instanceof HTMLFormElement && e.target.method === "post") remember(e.target);
});
restore();

// Sections held back while in use are swapped in once the visitor leaves them.
document.addEventListener("focusout", () => setTimeout(() => swap(new Map(waiting)), 0));

connect(`${location.protocol === "https:" ? "wss" : "ws"}://${location.host}${app.dataset.socket}`, {
  onMessage(frame) {
    if (frame.type !== "event") return;
    clearTimeout(timer);
    timer = setTimeout(refresh, SETTLE_MS);
  },
  onStatus(open) {
    connection.hidden = open;
    app.dataset.connected = String(open);
  },
});
