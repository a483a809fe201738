// The chat panel of the table page and the event page (docs/chat.md). It reads the chat frames
// of a socket opened with ?chat=1: `chat_history` (a room's last messages, once per room the
// reader may read, again when their mutes change), `chat_left`, `chat`, `chat_deleted`, `chat_switch`, and
// the errors that answer its own messages. Text is always set with textContent, never as HTML.
// Mutes, deletions and the room's switch go through the REST API (/api/chat/...).

const MAX = 300;
const LABELS = { players: "Players", spectators: "Spectators", event: "Event" };

function el(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(props)) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith("on")) node.addEventListener(name.slice(2), value);
    else if (name === "class") node.className = value;
    else if (name === "text") node.textContent = value;
    else node.setAttribute(name, String(value));
  }
  node.append(...children.filter(Boolean));
  return node;
}

const time = (at) => new Date(at).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });

/**
 * Draw a chat panel into `root` (an empty element). `send(message)` sends over the socket (false
 * when it is down); `me` is the reader's username ("" for a visitor); `csrf` the page's token;
 * `onActivity()` is told of a message in a room not on screen. Returns `handle(frame)`, true
 * when the frame was the chat's, and `shown(visible)`, told when the panel is shown or hidden.
 */
export function createChat(root, { send, me, csrf, onActivity = () => {} }) {
  const rooms = new Map(); // name -> the room's last chat_history frame, messages kept current
  const sent = new Map(); // client_id -> text, until answered
  let current = null;
  let chosen = false; // the reader picked a room
  let visible = true;
  let muted = [];

  const tabs = el("div", { class: "chat-rooms", role: "group", "aria-label": "Chat rooms" });
  const lines = el("ol", { class: "chat-lines", role: "log", "aria-label": "Chat", tabindex: "0" });
  const off = el("p", { class: "chat-off", role: "status", hidden: "" });
  const note = el("p", { class: "chat-note", hidden: "" });
  const error = el("p", { class: "chat-error", role: "alert", hidden: "" });
  const input = el("input", {
    type: "text", id: `${root.id}-text`, maxlength: String(MAX), autocomplete: "off",
    placeholder: "Say something", "aria-describedby": `${root.id}-count`,
  });
  const count = el("span", { class: "chat-count", id: `${root.id}-count`, text: `0/${MAX}` });
  const button = el("button", { type: "submit", text: "Send" });
  const form = el("form", { class: "chat-form" },
    el("label", { class: "sr-only", for: input.id, text: "Message" }), input, count, button);
  const switcher = el("button", { type: "button", class: "chat-switch", hidden: "" });
  const mutes = el("p", { class: "chat-mutes", hidden: "" });
  root.append(tabs, lines, off, note, error, form, switcher, mutes);

  function api(path, method, body) {
    return fetch(`/api/chat/${path}`, {
      method, credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-CSRFToken": csrf },
      body: body === undefined ? undefined : JSON.stringify(body),
    }).then(async (response) => {
      const answer = response.status === 204 ? {} : await response.json();
      if (!response.ok) throw new Error(answer.message || answer.error || response.statusText);
      return answer;
    });
  }

  function fail(message) {
    error.textContent = message;
    error.hidden = !message;
  }

  function line(room, message) {
    const item = el("li", { class: "chat-line", "data-id": message.id },
      el("time", { datetime: message.at, text: time(message.at) }), " ",
      el("span", { class: "chat-who", text: message.user }), " ",
      el("span", { class: "chat-text", text: message.text }));
    if (me && message.user !== me) {
      item.append(el("button", {
        type: "button", class: "chat-act", text: "mute", "aria-label": `Mute ${message.user}`,
        title: `Stop seeing ${message.user}'s messages, in every room`,
        onclick: () => api("mutes/", "POST", { user: message.user }).then(showMutes, (e) => fail(e.message)),
      }));
    }
    if (room.moderator) {
      item.append(el("button", {
        type: "button", class: "chat-act", text: "delete", "aria-label": `Delete ${message.user}'s message`,
        onclick: () => api(`messages/${message.id}/`, "DELETE").catch((e) => fail(e.message)),
      }));
    }
    return item;
  }

  function showMutes(answer) {
    muted = answer.muted;
    mutes.replaceChildren();
    mutes.hidden = !muted.length;
    if (!muted.length) return;
    mutes.append("Muted: ");
    for (const name of muted) {
      mutes.append(el("button", {
        type: "button", class: "chat-act", text: `${name} (unmute)`, "aria-label": `Unmute ${name}`,
        onclick: () => api(`mutes/${encodeURIComponent(name)}/`, "DELETE").then(showMutes, (e) => fail(e.message)),
      }), " ");
    }
  }

  function drawTabs() {
    tabs.replaceChildren();
    tabs.hidden = rooms.size < 2;
    for (const [name, room] of rooms) {
      const label = `${LABELS[name] || name}${room.unread ? ` (${room.unread})` : ""}`;
      tabs.append(el("button", {
        type: "button", text: label, "aria-pressed": String(name === current), "data-room": name,
        onclick: () => { current = name; chosen = true; draw(); },
      }));
    }
  }

  function drawState() {
    const room = rooms.get(current);
    off.hidden = !room || room.enabled;
    off.textContent = "The chat is off: a moderator turned it off.";
    const writable = Boolean(room && room.writable && room.enabled);
    form.hidden = !room || !room.writable;
    input.disabled = button.disabled = !writable;
    note.hidden = !room || room.writable;
    note.textContent = !me ? "Log in to chat." : current === "players" ? "Only the players talk here." : "You read this room; you cannot write here.";
    switcher.hidden = !room || !room.moderator;
    if (room) switcher.textContent = room.enabled ? "Turn the chat off" : "Turn the chat on";
    root.dataset.enabled = String(Boolean(room && room.enabled));
  }

  function draw() {
    const room = rooms.get(current);
    if (room) room.unread = 0;
    drawTabs();
    lines.replaceChildren(...(room ? room.messages.map((m) => line(room, m)) : []));
    if (room && !room.messages.length) lines.append(el("li", { class: "chat-empty", text: "No messages yet." }));
    lines.scrollTop = lines.scrollHeight;
    drawState();
  }

  function onHistory(frame) {
    const before = rooms.get(frame.room);
    rooms.set(frame.room, { ...frame, unread: before ? before.unread : 0 });
    if (!chosen || !rooms.has(current)) {
      // Until the reader picks a tab, the room they may write in comes first.
      current = [...rooms.keys()].find((n) => rooms.get(n).writable) || current || frame.room;
      if (!rooms.has(current)) current = frame.room;
    }
    draw();
  }

  function onMessage(frame) {
    const room = rooms.get(frame.room);
    if (!room || room.messages.some((m) => m.id === frame.message.id)) return;
    room.messages.push(frame.message);
    if (frame.room === current) {
      lines.querySelector(".chat-empty")?.remove();
      const atEnd = lines.scrollHeight - lines.scrollTop - lines.clientHeight < 24;
      lines.append(line(room, frame.message));
      if (atEnd || frame.message.user === me) lines.scrollTop = lines.scrollHeight;
    } else {
      room.unread += 1;
      drawTabs();
    }
    if (frame.message.user !== me && (!visible || frame.room !== current)) onActivity();
  }

  function onDeleted(frame) {
    const room = rooms.get(frame.room);
    if (!room) return;
    room.messages = room.messages.filter((m) => m.id !== frame.id);
    if (frame.room === current) draw();
  }

  function handle(frame) {
    if (frame.type === "chat_history") onHistory(frame);
    else if (frame.type === "chat") onMessage(frame);
    else if (frame.type === "chat_deleted") onDeleted(frame);
    else if (frame.type === "chat_left") {
      rooms.delete(frame.room);
      if (current === frame.room) current = [...rooms.keys()].find((n) => rooms.get(n).writable) || [...rooms.keys()][0] || null;
      draw();
    }
    else if (frame.type === "chat_switch") {
      const room = rooms.get(frame.room);
      if (room) room.enabled = frame.enabled;
      drawState();
    } else if (frame.type === "error" && sent.has(frame.client_id)) {
      if (!input.value) input.value = sent.get(frame.client_id);
      sent.delete(frame.client_id);
      counter();
      fail(frame.error === "chat_rate_limited"
        ? `Slow down: you can write again in ${Math.ceil(frame.retry_after)} s.`
        : frame.message);
    } else return false;
    return true;
  }

  function counter() {
    const n = input.value.length;
    count.textContent = `${n}/${MAX}`;
    count.classList.toggle("near", n > MAX - 30);
  }

  input.addEventListener("input", counter);
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const text = input.value.trim();
    if (!text || !current) return;
    const clientId = `chat-${Date.now()}-${Math.random().toString(36).slice(2)}`;
    if (!send({ type: "chat", room: current, text, client_id: clientId })) {
      fail("Not connected: try again once reconnected.");
      return;
    }
    sent.set(clientId, text);
    fail("");
    input.value = "";
    counter();
  });
  switcher.addEventListener("click", () => {
    const room = rooms.get(current);
    api(`rooms/${encodeURIComponent(room.key)}/`, "PUT", { enabled: !room.enabled }).catch((e) => fail(e.message));
  });
  if (me) api("mutes/", "GET").then(showMutes, () => {});
  drawState();

  return {
    handle,
    shown(isVisible) {
      visible = isVisible;
      if (isVisible) lines.scrollTop = lines.scrollHeight;
    },
  };
}
