// The live lobby (/tables/). Over the lobby socket (/ws/lobby/): `pools` frames redraw the
// quick-play buttons with how many wait in each pool, `me` frames show where you stand (waiting
// in a pool, with Cancel), `matched` takes you to your new table, and `table` frames (a table
// created, seated, started, finished or aborted) make the page ask the server for its two lists
// again (`?part=lists`, the same template the page was drawn with), a moment later so a burst
// of changes costs one request. The filters apply as they change, without a reload, and stay
// in the address so a reload or a shared link keeps them. Joining and leaving a pool are the
// REST calls of PROTOCOL.md (POST and DELETE /api/pools/join/).

import { connect } from "./socket.js";

const $ = (id) => document.getElementById(id);
const root = $("quick-play");
const signedIn = root.dataset.signedIn === "true";
const REFRESH_MS = 250; // table changes within this long are fetched together

const ui = {
  pools: [],
  me: { status: "none" },
  busy: false, // a join or leave is on its way
  refreshTimer: null,
  asked: 0, // list requests made
  clockTimer: null,
};

// --- quick play ----------------------------------------------------------------------------

function drawPools() {
  const box = $("pools");
  box.replaceChildren(
    ...ui.pools.map((pool) => {
      const button = document.createElement("button");
      button.type = "button";
      button.className = "pool";
      button.dataset.pool = pool.key;
      const name = document.createElement("span");
      name.className = "pool-name";
      name.textContent = pool.label;
      const count = document.createElement("span");
      count.className = "pool-count";
      count.textContent = `${pool.waiting} waiting · ${pool.playing} playing`;
      button.append(name, count);
      button.setAttribute("aria-label", `Quick play: ${pool.label}, ${pool.waiting} waiting`);
      const mine = ui.me.status === "waiting" && ui.me.pool?.key === pool.key;
      button.classList.toggle("mine", mine);
      button.setAttribute("aria-pressed", String(mine));
      button.disabled = ui.busy;
      button.addEventListener("click", () => joinPool(pool));
      return button;
    }),
  );
}

function drawMe() {
  const waiting = ui.me.status === "waiting";
  $("pool-waiting").hidden = !waiting;
  clearInterval(ui.clockTimer);
  if (waiting) {
    const pool = ui.pools.find((p) => p.key === ui.me.pool.key);
    $("pool-waiting-name").textContent = pool ? pool.label : ui.me.pool.key;
    const since = Date.parse(ui.me.since);
    const tick = () => {
      const seconds = Math.max(0, Math.round((Date.now() - since) / 1000));
      $("pool-waiting-time").textContent = `${seconds} s`;
    };
    tick();
    ui.clockTimer = setInterval(tick, 1000);
  }
  drawPools();
}

function say(message) {
  const box = $("pool-message");
  box.textContent = message || "";
  box.hidden = !message;
}

function goTo(url) {
  window.location.assign(url);
}

async function call(method, body) {
  const answer = await fetch(root.dataset.joinUrl, {
    method,
    credentials: "same-origin",
    headers: { "Content-Type": "application/json", "X-CSRFToken": root.dataset.csrf, Accept: "application/json" },
    body: body ? JSON.stringify(body) : undefined,
  });
  const data = answer.status === 204 ? null : await answer.json().catch(() => null);
  return { answer, data };
}

async function joinPool(pool) {
  if (!signedIn) {
    goTo(root.dataset.loginUrl);
    return;
  }
  if (ui.me.status === "waiting" && ui.me.pool?.key === pool.key) return;
  ui.busy = true;
  say("");
  drawPools();
  try {
    const { answer, data } = await call("POST", {
      ruleset: pool.ruleset,
      seats: pool.seats,
      turn_seconds: pool.turn_seconds,
    });
    if (!answer.ok) {
      say(data?.message || `Quick play was refused (${answer.status}).`);
    } else if (data.status === "matched") {
      goTo(data.url);
    } else {
      ui.me = data;
    }
  } catch {
    say("Not connected: quick play was not asked. Try again.");
  } finally {
    ui.busy = false;
    drawMe();
  }
}

async function leavePool() {
  ui.busy = true;
  drawPools();
  try {
    const { answer, data } = await call("DELETE");
    if (answer.status === 200 && data?.status === "matched") {
      goTo(data.url); // the match came first
      return;
    }
    if (!answer.ok) say(data?.message || `Leaving was refused (${answer.status}).`);
    else ui.me = { status: "none" };
  } catch {
    say("Not connected: you are still waiting. Try again.");
  } finally {
    ui.busy = false;
    drawMe();
  }
}

$("pool-cancel").addEventListener("click", leavePool);

// --- the lists and their filters ------------------------------------------------------------

function filterQuery() {
  const params = new URLSearchParams();
  for (const field of $("lobby-filters").elements) {
    if (field.name && field.value) params.set(field.name, field.value);
  }
  return params.toString();
}

async function refreshLists() {
  ui.refreshTimer = null;
  const query = filterQuery();
  const asked = ++ui.asked; // a later request's answer wins, whichever arrives last
  try {
    const answer = await fetch(`${root.dataset.listsUrl}${query ? `&${query}` : ""}`, {
      credentials: "same-origin",
    });
    const html = await answer.text();
    if (answer.ok && asked === ui.asked) $("lobby-lists").innerHTML = html; // the server's template
  } catch {
    // Offline: the socket's reconnection asks again.
  }
}

function refreshSoon() {
  if (ui.refreshTimer === null) ui.refreshTimer = setTimeout(refreshLists, REFRESH_MS);
}

$("lobby-filters").addEventListener("change", () => {
  const query = filterQuery();
  history.replaceState(null, "", query ? `?${query}` : location.pathname);
  refreshLists();
});
$("lobby-filters").addEventListener("submit", (event) => {
  event.preventDefault();
  refreshLists();
});
$("filters-apply").hidden = true; // filters apply as they change

// --- the socket -------------------------------------------------------------------------------

function onMessage(frame) {
  if (frame.type === "pools") {
    ui.pools = frame.pools;
    drawMe();
  } else if (frame.type === "me") {
    ui.me = frame.me;
    drawMe();
  } else if (frame.type === "matched") {
    goTo(frame.url);
  } else if (frame.type === "table" || frame.type === "resync") {
    refreshSoon();
  }
}

let everOpen = false;
function onStatus(open) {
  $("lobby-connection").hidden = open;
  if (open && everOpen) refreshSoon(); // changes may have passed while the socket was down
  everOpen = everOpen || open;
}

const scheme = location.protocol === "https:" ? "wss" : "ws";
connect(`${scheme}://${location.host}${root.dataset.socket}`, { onMessage, onStatus });
