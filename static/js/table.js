// The live table page. The server renders the table's payload into #table-data; this module
// keeps it current over the WebSocket (/ws/tables/<id>/) and draws every `state` frame. Every
// action sends the latest version and a fresh client_id; buttons are enabled only for what the
// view's `legal` list allows. The turn clock counts down on the mover (clock.js); an absent
// player gets an "I'm back" button, and organizers get Pause and Resume (REST calls). While the
// table waits, the Join, Leave and Start forms show exactly as the frame's `actions` say.

import { handEntries, matchPlay, sortEntries } from "./cards.js";
import { running } from "./clock.js";
import * as draw from "./render.js";
import { connect } from "./socket.js";

const $ = (id) => document.getElementById(id);
const root = $("table-app");
const manager = root.dataset.manage === "true"; // staff or the event's organizer

const ui = {
  frame: JSON.parse($("table-data").textContent), // the payload, then each frame merged in
  sort: "suit",
  selected: new Set(), // keys of selected hand cards ("7S#0")
  depth: 1, // discard pile cards to take, counted from the top
  target: null, // the meld id chosen for a lay-off
  pending: false, // an action is on its way: no second one until the answer
  managing: false, // a pause or resume is on its way
  connected: false, // no action can be sent before the socket is open
  pile: "",
};

const uuid = () =>
  crypto.randomUUID?.() ??
  "10000000-1000-4000-8000-100000000000".replace(/[018]/g, (c) =>
    (c ^ (crypto.getRandomValues(new Uint8Array(1))[0] & (15 >> (c / 4)))).toString(16),
  );

function me(view) {
  return view?.you ? view.players.find((p) => p.name === view.you) : null;
}

function selectedCodes(view) {
  const hand = me(view)?.hand ?? [];
  return handEntries(hand).filter((e) => ui.selected.has(e.key)).map((e) => e.code);
}

/** The action each button would send now, or undefined when the rules do not allow it. */
function choices(view) {
  const idle = ui.pending || !ui.connected || !view || ui.frame.clock?.paused;
  const legal = idle ? [] : view.legal ?? [];
  const codes = selectedCodes(view);
  const rummies = legal.filter((a) => a.type === "rummy");
  return {
    draw: legal.find((a) => a.type === "draw" && a.source === "stock"),
    take: legal.find((a) => a.type === "draw" && a.source === "discard" && a.count === ui.depth),
    meld: matchPlay(legal, "meld", codes),
    layoff: ui.target === null ? undefined : matchPlay(legal, "layoff", codes, ui.target),
    discard: codes.length === 1 ? legal.find((a) => a.type === "discard" && a.card === codes[0]) : undefined,
    rummy: rummies.find((a) => a.count === ui.depth) ?? rummies[0],
  };
}

function statusText(frame) {
  const view = frame.view;
  if (frame.status === "waiting") return "Waiting for players.";
  if (frame.status === "aborted") return "This table was closed before the game began.";
  if (!view) return "";
  if (view.phase === "game_over") return view.winner ? `Game over: ${view.winner} wins.` : "Game over.";
  const who = view.turn === view.you ? "Your turn" : `${view.turn} to play`;
  if (view.turn !== view.you) return `Hand ${view.hand_number}: ${who}.`;
  if (view.phase === "draw") return `${who}: draw from the stock or take from the discard pile.`;
  if (view.required) return `${who}: meld the ${view.required} you took, then discard.`;
  return `${who}: meld or lay off if you like, then discard one card.`;
}

function renderWaiting(frame) {
  const { players, seats } = frame;
  $("seat-count").textContent = `${players.length} of ${seats} seats taken.`;
  $("seat-list").replaceChildren(...players.map((name) => draw.el("li", {}, name)));
  // Who may join, leave or start is the server's to say: each waiting frame carries this
  // viewer's `actions`, from the very checks the services make (a club's table, a full one...).
  const may = frame.actions ?? {};
  for (const name of ["join", "leave", "start"]) {
    const form = $(`${name}-form`);
    if (form) form.hidden = !may[name];
  }
}

/** Forget selections that no longer make sense after a new state. */
function prune(view, ownAnswer) {
  const keys = new Set(handEntries(me(view)?.hand ?? []).map((e) => e.key));
  if (ownAnswer) ui.selected.clear();
  for (const key of ui.selected) if (!keys.has(key)) ui.selected.delete(key);
  if (ownAnswer || !view.melds.some((m) => m.id === ui.target)) ui.target = null;
  const pile = view.discard.join();
  if (pile !== ui.pile) ui.depth = 1;
  ui.pile = pile;
}

function renderHand(view) {
  const entries = sortEntries(handEntries(me(view).hand), ui.sort);
  const toggle = (key) => () => {
    if (!ui.selected.delete(key)) ui.selected.add(key);
    render();
  };
  $("hand").replaceChildren(
    ...entries.map((e) =>
      draw.cardButton(e.code, {
        key: `hand:${e.key}`,
        pressed: ui.selected.has(e.key),
        extra: e.code === view.required ? "required" : "",
        onclick: toggle(e.key),
      }),
    ),
  );
  $("sort-suit").setAttribute("aria-pressed", String(ui.sort === "suit"));
  $("sort-rank").setAttribute("aria-pressed", String(ui.sort === "rank"));
}

function renderPile(view, player) {
  const pile = view.discard;
  $("pile").replaceChildren(
    ...pile.map((code, i) => {
      const count = pile.length - i;
      if (!player) return draw.cardTile(code);
      return draw.cardButton(code, {
        key: `pile:${count}`,
        pressed: count === ui.depth,
        extra: count <= ui.depth ? "taking" : "",
        label: `${code}: take ${count} card${count > 1 ? "s" : ""}`,
        onclick: () => {
          ui.depth = count;
          render();
        },
      });
    }),
  );
  $("take").textContent = `Take ${ui.depth}`;
}

function renderGame(view) {
  const player = Boolean(me(view));
  $("players").replaceChildren(...draw.players(view, ui.frame.clock, ui.frame.deadline));
  $("stock-size").textContent = `${view.stock} card${view.stock === 1 ? "" : "s"} left`;
  renderPile(view, player);
  $("melds").replaceChildren(
    ...view.melds.map((m) =>
      draw.meld(m, {
        choosable: player,
        chosen: ui.target === m.id,
        onclick: () => {
          ui.target = ui.target === m.id ? null : m.id;
          render();
        },
      }),
    ),
  );
  if (view.melds.length === 0) $("melds").append(draw.el("li", { class: "empty" }, "No meld yet."));
  const over = view.phase === "game_over";
  for (const id of ["hand-panel", "draw-stock", "take", "pile-hint", "melds-hint"]) $(id).hidden = !player || over;
  if (player) renderHand(view);
  const can = choices(view);
  for (const name of ["meld", "layoff", "discard", "rummy"]) $(name).disabled = !can[name];
  $("draw-stock").disabled = !can.draw;
  $("take").disabled = !can.take;
  $("scores").replaceChildren(...draw.scores(view));
  $("deal-list").replaceChildren(...draw.deals(view, ui.frame.rules));
  $("result").hidden = !over;
  if (over) {
    $("winner").textContent = view.winner ? `${view.winner} wins.` : "";
    $("placements").replaceChildren(...draw.placements(view));
    $("deals").open = true;
  }
}

/** The paused banner, the organizer's Pause and Resume, and the absent player's "I'm back". */
function renderClock(frame) {
  const playing = frame.status === "playing";
  const paused = playing && Boolean(frame.clock?.paused);
  $("paused").hidden = !paused;
  $("absent-note").hidden = !(playing && me(frame.view)?.absent);
  $("back").disabled = !ui.connected; // sent over the socket
  if (!manager) return;
  $("clock-controls").hidden = !playing;
  $("pause").hidden = paused;
  $("resume").hidden = !paused;
  $("pause").disabled = $("resume").disabled = ui.managing;
}

function render() {
  const frame = ui.frame;
  const focused = document.activeElement?.dataset?.key;
  $("waiting").hidden = frame.status !== "waiting";
  $("game").hidden = !frame.view;
  if (frame.status === "waiting") renderWaiting(frame);
  if (frame.view) renderGame(frame.view);
  renderClock(frame);
  $("status").textContent = statusText(frame);
  if (focused && document.activeElement === document.body) {
    root.querySelector(`[data-key="${CSS.escape(focused)}"]`)?.focus();
  }
  tick();
}

/** Count the mover's clock down once a second: the turn clock, then their bank. */
function tick() {
  for (const clock of root.querySelectorAll(".clock[data-deadline]")) {
    const shown = running(clock.dataset, Date.now());
    clock.textContent = shown.text;
    clock.classList.toggle("bank", shown.bank);
  }
}

let toastTimer;
function toast(message) {
  const box = $("toast");
  box.textContent = message;
  box.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => (box.hidden = true), 8000);
}

function onMessage(message) {
  if (message.type === "error") {
    ui.pending = false;
    toast(message.message || message.error);
    render();
    return;
  }
  if (message.type !== "state" || message.version < ui.frame.version) return;
  const newer = message.version > ui.frame.version;
  const ownAnswer = ui.pending && newer;
  if (newer) ui.pending = false;
  ui.frame = { ...ui.frame, ...message };
  if (message.view) prune(message.view, ownAnswer);
  render();
}

function onStatus(open) {
  ui.connected = open;
  const line = $("connection");
  line.hidden = open;
  line.textContent = open ? "" : "Reconnecting\u2026";
  if (open) ui.pending = false; // an action lost with the old socket is not coming back
  render();
}

const scheme = location.protocol === "https:" ? "wss" : "ws";
const socket = connect(`${scheme}://${location.host}/ws/tables/${root.dataset.table}/`, { onMessage, onStatus });

function act(name) {
  const action = choices(ui.frame.view)[name];
  if (!action) return;
  if (!socket.send({ type: "action", action, version: ui.frame.version, client_id: uuid() })) {
    toast("Not connected: the action was not sent. Reconnecting\u2026");
    return;
  }
  ui.pending = true;
  render();
}

/** Pause or resume the table (organizers): the new state comes back as a push, like any change. */
async function manageClock(call) {
  ui.managing = true;
  render();
  try {
    const answer = await fetch(root.dataset[`${call}Url`], {
      method: "POST",
      credentials: "same-origin",
      headers: { "X-CSRFToken": root.dataset.csrf, Accept: "application/json" },
    });
    if (!answer.ok) {
      const body = await answer.json().catch(() => ({}));
      toast(body.message || `The ${call} was refused (${answer.status}).`);
    }
  } catch {
    toast(`Not connected: the ${call} was not sent.`);
  } finally {
    ui.managing = false;
    render();
  }
}

function comeBack() {
  if (!socket.send({ type: "back" })) toast("Not connected: try again once reconnected.");
}

if (manager) {
  $("pause").addEventListener("click", () => manageClock("pause"));
  $("resume").addEventListener("click", () => manageClock("resume"));
}
$("back").addEventListener("click", comeBack);
$("draw-stock").addEventListener("click", () => act("draw"));
$("take").addEventListener("click", () => act("take"));
for (const name of ["meld", "layoff", "discard", "rummy"]) $(name).addEventListener("click", () => act(name));
for (const by of ["suit", "rank"]) {
  $(`sort-${by}`).addEventListener("click", () => {
    ui.sort = by;
    render();
  });
}
if (ui.frame.view) prune(ui.frame.view, false);
render();
setInterval(tick, 1000);
