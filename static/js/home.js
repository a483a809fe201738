// The home page's live counts (games in play, players at the tables, tables waiting). The lobby
// socket (/ws/lobby/) tells of every table created, seated, started, finished or aborted with a
// `table` frame; the page then asks the server for its counts again (`?part=counts`, the
// template the page was drawn with), a moment later so a burst of changes costs one request.

import { connect } from "./socket.js";

const box = document.getElementById("live-counts");
const REFRESH_MS = 1000;
let timer = null;
let opened = false;

async function refresh() {
  timer = null;
  try {
    const answer = await fetch(box.dataset.url, { headers: { Accept: "text/html" } });
    if (!answer.ok) return;
    const fresh = new DOMParser().parseFromString(await answer.text(), "text/html");
    const counts = fresh.getElementById("live-counts");
    if (counts) box.replaceChildren(...counts.children);
  } catch {
    // Offline for a moment: the next change or reconnect asks again.
  }
}

function later() {
  if (timer === null) timer = setTimeout(refresh, REFRESH_MS);
}

function onMessage(frame) {
  if (frame.type === "table") later();
}

const scheme = location.protocol === "https:" ? "wss" : "ws";
connect(`${scheme}://${location.host}${box.dataset.socket}`, {
  onMessage,
  onStatus: (open) => {
    if (open && opened) later(); // back after a gap: changes may have been missed
    opened ||= open;
    box.dataset.live = String(open); // listening for changes (tests wait on it)
  },
});
