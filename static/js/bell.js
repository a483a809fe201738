// The bell in the header of every page for a signed-in user: the unread count, kept current
// over the user's own socket (/ws/me/, docs/notifications.md). The server sends
// {"type": "unread", "unread": n} on connect and after notices are read, and
// {"type": "notification", "notification": {...}, "unread": n} for each new one, whose text is
// announced to screen readers and shown as the bell's tooltip (as text, never as HTML).

import { connect } from "./socket.js";

const bell = document.getElementById("bell");
const count = document.getElementById("bell-count");
const news = document.getElementById("bell-news");

function show(unread) {
  count.textContent = unread > 99 ? "99+" : String(unread);
  count.hidden = unread === 0;
  bell.dataset.unread = String(unread);
  bell.setAttribute("aria-label", unread ? `Notifications, ${unread} unread` : "Notifications");
}

function onMessage(data) {
  if (data.type === "unread") show(data.unread);
  if (data.type === "notification") {
    show(data.unread);
    bell.title = data.notification.text;
    news.textContent = data.notification.text;
  }
}

if (bell) {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  connect(`${scheme}://${location.host}${bell.dataset.socket}`, {
    onMessage,
    onStatus(open) {
      bell.dataset.connected = String(open);
    },
  });
}
