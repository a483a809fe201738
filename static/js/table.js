// The live table page. The server renders the table's payload into #table-data; this module
// keeps it current over the WebSocket (/ws/tables/<id>/) and draws every `state` frame as a card
// table: the others round the felt by seat order, the stock and the pile in the centre with the
// melds, your hand and the action bar at the bottom, the move log on the right. Every action
// sends the latest version and a fresh client_id; buttons are enabled only for what the view's
// `legal` list allows. While the table waits, the Join, Leave and Start forms show exactly as the
// frame's `actions` say. Keyboard: keys.js; dragging: drag.js; the move log: log.js.

import { added, face, handEntries, matchPlay, plural, sortEntries, why } from "./cards.js";
import { clockNow, running } from "./clock.js";
import { wireDrops } from "./drag.js";
import { wireKeys } from "./keys.js";
import { MoveLog } from "./log.js";
import * as draw from "./render.js";
import { createChat } from "./chat.js";
import { connect } from "./socket.js";
import { loadSettings, play, saveSettings } from "./sounds.js";

const $ = (id) => document.getElementById(id);
const root = $("table-app");
const manager = root.dataset.manage === "true"; // staff or the event's organizer
const ORDER_KEY = `rummy:order:${root.dataset.table}`;
const FRESH_MS = 1600; // how long the newest discard, meld or lay-off glows

const ui = {
  frame: JSON.parse($("table-data").textContent), // the payload, then each frame merged in
  ratings: JSON.parse($("seat-ratings").textContent),
  // {rated, chances}: each seated player's chance of finishing first, fixed for the game.
  chances: JSON.parse($("seat-chances").textContent),
  seatsAsked: null, // the players whose ratings and chances were last read again
  sort: "suit", // "suit", "rank" or "custom" (the player's own order, dragged)
  order: [], // the custom order: hand card keys
  selected: new Set(), // keys of selected hand cards ("7S#0")
  depth: 1, // discard pile cards to take, counted from the top
  target: null, // the meld id chosen for a lay-off
  pending: false, // an action is on its way: no second one until the answer
  managing: false, // a pause or resume is on its way
  connected: false, // no action can be sent before the socket is open
  pile: "",
  handFocus: null, // the hand card that holds the hand's one Tab stop
  drawnFrom: null, // your hand just before your own draw
  drawn: new Set(), // keys of the cards that draw brought, marked until your turn ends
  fresh: { pile: false, melds: new Set(), until: 0 },
  dragKey: null,
  leaving: false, // on the way to the rematch's table
  focusHand: false, // move the focus to the hand's Tab stop at the next draw
  mine: false, // whether it was your turn at the last frame
  lowWarned: false, // the "little time left" sound and notice, once a turn
  log: new MoveLog(),
  settings: loadSettings(),
};
try {
  const saved = JSON.parse(localStorage.getItem(ORDER_KEY) ?? "null");
  if (Array.isArray(saved)) [ui.sort, ui.order] = ["custom", saved];
} catch {
  // No storage: the hand sorts by suit.
}

const uuid = () =>
  crypto.randomUUID?.() ??
  "10000000-1000-4000-8000-100000000000".replace(/[018]/g, (c) =>
    (c ^ (crypto.getRandomValues(new Uint8Array(1))[0] & (15 >> (c / 4)))).toString(16),
  );

function me(view) {
  return view?.you ? view.players.find((p) => p.name === view.you) : null;
}

function entries(view) {
  return handEntries(me(view)?.hand ?? []);
}

function selectedCodes(view) {
  return entries(view)
    .filter((e) => ui.selected.has(e.key))
    .map((e) => e.code);
}

/** The action each button would send now, or undefined when the rules do not allow it. */
function choices(view) {
  const idle = ui.pending || !ui.connected || !view || ui.frame.clock?.paused;
  const legal = idle ? [] : (view.legal ?? []);
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
  const keys = new Set(entries(view).map((e) => e.key));
  if (ownAnswer) ui.selected.clear();
  for (const key of ui.selected) if (!keys.has(key)) ui.selected.delete(key);
  if (ownAnswer || !view.melds.some((m) => m.id === ui.target)) ui.target = null;
  const pile = view.discard.join();
  if (pile !== ui.pile) ui.depth = 1;
  ui.pile = pile;
}

/** Where each player sits: you (or, for a spectator, the first seat) at the bottom, the others
 * round the felt in seat order from your left, across the top, to your right. */
function places(view) {
  const n = view.players.length;
  const bottom = Math.max(0, view.players.findIndex((p) => p.name === view.you));
  const others = n - 1;
  const angles =
    others === 1 ? [90] : others === 2 ? [140, 40] : Array.from({ length: others }, (_, j) => 180 - (j * 180) / (others - 1));
  return view.players.map((_, i) => {
    const k = (i - bottom + n) % n;
    if (k === 0) return { me: true };
    const a = (angles[k - 1] * Math.PI) / 180;
    return { x: Math.round(50 + 41 * Math.cos(a)), y: Math.round((1 - Math.sin(a)) * 42) };
  });
}

const seatOf = (view) => (name) => Math.max(0, view.players.findIndex((p) => p.name === name));

/** The hand in the player's order: sorted by suit or rank, or as they dragged it. */
function ordered(view) {
  const all = entries(view);
  if (ui.sort !== "custom") return sortEntries(all, ui.sort);
  const at = (e) => {
    const i = ui.order.indexOf(e.key);
    return i < 0 ? ui.order.length + all.indexOf(e) : i;
  };
  return [...all].sort((a, b) => at(a) - at(b));
}

const handNodes = new Map(); // key -> its button, kept so a raised card moves smoothly

function handButton(key) {
  let node = handNodes.get(key);
  if (node) return node;
  node = draw.el("button", {
    type: "button",
    draggable: "true",
    onclick: () => {
      if (!ui.selected.delete(key)) ui.selected.add(key);
      ui.handFocus = key;
      render();
    },
    ondblclick: () => {
      ui.selected = new Set([key]);
      act("discard");
    },
    onfocus: () => setHandFocus(key),
    ondragstart: (event) => {
      ui.dragKey = key;
      event.dataTransfer.setData("text/plain", key);
      event.dataTransfer.effectAllowed = "move";
    },
    ondragend: () => (ui.dragKey = null),
  });
  handNodes.set(key, node);
  return node;
}

function setHandFocus(key) {
  ui.handFocus = key;
  for (const b of $("hand").children) b.tabIndex = b.dataset.key === `hand:${key}` ? 0 : -1;
}

function renderHand(view) {
  const list = ordered(view);
  const faces = new Map(list.map((e) => [e.key, e.code]));
  for (const key of handNodes.keys()) if (!faces.has(key)) handNodes.delete(key);
  if (!faces.has(ui.handFocus)) ui.handFocus = list[0]?.key ?? null;
  const nodes = list.map((e) => {
    const node = handButton(e.key);
    const marks = [e.code === view.required ? "required" : "", ui.drawn.has(e.key) ? "drawn" : ""].filter(Boolean);
    node.className = draw.cardClass(e.code, marks.join(" "));
    node.dataset.key = `hand:${e.key}`;
    node.dataset.card = e.code;
    node.setAttribute("aria-pressed", String(ui.selected.has(e.key)));
    const name = face(e.code).name;
    node.tabIndex = e.key === ui.handFocus ? 0 : -1;
    if (!node.firstChild) node.append(...draw.cardButton(e.code, {}).childNodes);
    node.querySelector(".sr-only").textContent = ui.drawn.has(e.key) ? `${name}, just drawn` : name;
    return node;
  });
  const box = $("hand");
  const same = box.children.length === nodes.length && nodes.every((n, i) => box.children[i] === n);
  if (!same) box.replaceChildren(...nodes);
  $("sort-suit").setAttribute("aria-pressed", String(ui.sort === "suit"));
  $("sort-rank").setAttribute("aria-pressed", String(ui.sort === "rank"));
}

function renderPile(view, choosing) {
  const pile = view.discard;
  const fresh = ui.fresh.pile && Date.now() < ui.fresh.until;
  $("pile").replaceChildren(
    ...pile.map((code, i) => {
      const count = pile.length - i;
      const extra = fresh && count === 1 ? "fresh" : "";
      // The pile is choosable only when you may take from it: otherwise nothing is selected.
      if (!choosing) return draw.cardTile(code, extra);
      return draw.cardButton(code, {
        key: `pile:${count}`,
        pressed: count === ui.depth,
        tabindex: count === ui.depth ? 0 : -1,
        extra: [count <= ui.depth ? "taking" : "", extra].filter(Boolean).join(" "),
        label: `${face(code).name}: take ${plural(count, "card")}`,
        onclick: () => {
          ui.depth = count;
          render();
        },
      });
    }),
  );
  if (pile.length === 0) $("pile").append(draw.el("span", { class: "empty-pile" }, "empty"));
  $("take").textContent = `Take ${ui.depth}`;
}

function setMax(frame) {
  const rules = frame.rules ?? {};
  const decks = frame.view.players.length >= (rules.two_decks_from ?? 5) ? 2 : 1;
  return rules.set_distinct_suits === false ? 4 * decks : 4;
}

/** A seat plate's rating: as this game left it once its ratings are written (so the plates agree
 * with the game-over panel's new ratings), else the rating the page was served with. */
function plateRating(frame, name) {
  const changed = frame.ratings?.[name];
  return changed ? { rating: changed.after, provisional: changed.provisional } : ui.ratings?.[name];
}

/** The chances the page holds when they are for exactly these players, else null: a page
 * served while the table waited has none, and the players who sat down after it have none. */
function seatChances(view) {
  const chances = ui.chances?.chances ?? {};
  const names = view.players.map((p) => p.name);
  const exact = names.length === Object.keys(chances).length && names.every((n) => n in chances);
  return exact ? chances : null;
}

/** A rated game began after this page was served: read the seated players' ratings and chances
 * again from the page as the server serves it now (they are the server's to compute), once for
 * each set of players. Nothing else on the page changes. */
async function refreshSeats(view) {
  const key = view.players.map((p) => p.name).join("\n");
  if (!ui.chances?.rated || ui.seatsAsked === key) return;
  ui.seatsAsked = key;
  try {
    const answer = await fetch(location.pathname, { credentials: "same-origin", headers: { Accept: "text/html" } });
    if (!answer.ok) return;
    const page = new DOMParser().parseFromString(await answer.text(), "text/html");
    ui.ratings = JSON.parse(page.getElementById("seat-ratings").textContent);
    ui.chances = JSON.parse(page.getElementById("seat-chances").textContent);
  } catch {
    return; // offline: the plates go on without them
  }
  render();
}

function renderGame(view) {
  const frame = ui.frame;
  const player = Boolean(me(view));
  const over = view.phase === "game_over";
  const spots = places(view);
  const seat = seatOf(view);
  const chances = seatChances(view);
  if (!chances) refreshSeats(view);
  $("players").replaceChildren(
    ...view.players.map((p, i) =>
      draw.plate(p, {
        view,
        clock: frame.clock,
        deadline: frame.deadline,
        rating: plateRating(frame, p.name),
        chance: chances?.[p.name],
        seat: i,
        place: spots[i],
      }),
    ),
  );
  $("felt").dataset.seats = String(view.players.length);
  $("stock-size").textContent = plural(view.stock, "card");
  const legal = view.legal ?? [];
  const choosing = player && !over && legal.some((a) => a.type === "draw" && a.source === "discard");
  renderPile(view, choosing);
  const fresh = Date.now() < ui.fresh.until ? ui.fresh.melds : new Set();
  $("melds").replaceChildren(
    ...view.melds.map((m) =>
      draw.meld(m, {
        choosable: player && !over,
        chosen: ui.target === m.id,
        fresh: fresh.has(m.id),
        seatOf: seat,
        onclick: () => {
          ui.target = ui.target === m.id ? null : m.id;
          render();
        },
      }),
    ),
  );
  if (view.melds.length === 0) $("melds").append(draw.el("li", { class: "empty" }, "No meld yet."));
  $("hand-panel").hidden = !player || over;
  if (player) renderHand(view);
  const can = choices(view);
  for (const name of ["meld", "discard", "rummy"]) $(name).disabled = !can[name];
  $("layoff").disabled = !can.layoff;
  $("layoff").textContent = ui.target === null ? "Lay off" : `Lay off on #${ui.target}`;
  $("draw-stock").disabled = !can.draw;
  $("take").disabled = !can.take;
  const mine = player && view.turn === view.you && !over;
  const nothing = !can.meld && !can.layoff && !can.discard;
  const codes = selectedCodes(view);
  const onto = !can.layoff && !ui.pending && matchPlay(legal, "layoff", codes);
  $("why").textContent = onto
    ? `these cards fit meld #${onto.meld}: choose it (click it, or L then ${onto.meld}) to lay off`
    : player && nothing
      ? why(codes, { legal, phase: view.phase, mine, required: view.required, setMax: setMax(frame) })
      : "";
  $("hand-panel").classList.toggle("mine", mine);
  $("scores").replaceChildren(...draw.scores(view));
  $("deal-list").replaceChildren(...draw.deals(view, frame.rules));
  renderBreak(frame, view, seat);
  renderResult(frame, view, player, seat, chances);
}

/** The hand-over summary through the break between hands (contract B), with its countdown. */
function renderBreak(frame, view, seat) {
  const ends = frame.clock?.break_ends;
  const on = Boolean(frame.last_hand && ends && Date.parse(ends) > Date.now() && view.phase !== "game_over");
  $("break").hidden = !on;
  if (!on) return;
  const last = frame.last_hand;
  // A hand nobody went out of ended with the stock (RULES.md), told as the move log tells it.
  const out = last.went_out ? `${last.went_out} went out` : "the stock ran out";
  $("break-heading").textContent = `Hand ${last.number} is over: ${out}`;
  $("break-table").replaceChildren(...draw.handSummary(last, view.players.map((p) => p.name), seat));
  tickBreak();
}

function tickBreak() {
  const ends = ui.frame.clock?.break_ends;
  if (!ends || $("break").hidden) return;
  const left = Math.max(0, Math.ceil((Date.parse(ends) - Date.now()) / 1000));
  $("break-countdown").textContent = `The next hand starts in ${plural(left, "second")}.`;
  if (left === 0) render();
}

/** Game over: places, rating changes (contract C) and the rematch offer. */
function renderResult(frame, view, player, seat, chances) {
  const over = view.phase === "game_over";
  $("result").hidden = !over;
  if (!over) return;
  $("winner").textContent = view.winner ? `${view.winner} wins.` : "";
  $("placements").replaceChildren(...draw.placements(view));
  $("deals").open = true;
  let extra = $("rating-changes");
  if (frame.ratings && !extra) {
    extra = draw.el("table", { id: "rating-changes", class: "ratings" });
    $("placements").after(extra);
  }
  if (frame.ratings) extra.replaceChildren(...draw.ratingRows(view, frame.ratings, chances));
  let summary = $("final-hand");
  if (frame.last_hand && !summary) {
    summary = draw.el("table", { id: "final-hand", class: "summary" });
    // Last in the panel: the places, the rematch and the links stay in view above it.
    $("result").append(draw.el("div", { class: "scroll" }, summary));
  }
  if (frame.last_hand) summary.replaceChildren(...draw.handSummary(frame.last_hand, view.players.map((p) => p.name), seat));
  if ("rematch" in frame) {
    if (frame.rematch?.table && !ui.leaving) {
      ui.leaving = true; // every open page goes to the new table, once
      location.assign(`/tables/${frame.rematch.table}/`);
    }
    $("rematch").replaceChildren(
      ...draw.rematch(frame.rematch, { you: view.you, seated: player, now: Date.now(), onanswer: answerRematch }),
    );
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
  // Banners float just above the hand, however many rows it takes.
  const hand = $("hand-panel");
  root.style.setProperty("--under", `${frame.view && !hand.hidden ? hand.offsetHeight : 0}px`);
  if (focused && (document.activeElement === document.body || !document.activeElement)) {
    // Focus stays where it was; a card that left the hand hands it to the hand's Tab stop.
    const again = root.querySelector(`[data-key="${CSS.escape(focused)}"]`);
    const fallback = /^(hand|pile):/.test(focused) ? $("hand").querySelector('[tabindex="0"]') : null;
    (again ?? fallback)?.focus();
  }
  if (ui.focusHand) {
    ui.focusHand = false;
    $("hand").querySelector('[tabindex="0"]')?.focus();
  }
  tick();
}

/** Little time left: 10 s, or a quarter of the turn clock when that is shorter. */
const lowAt = (clock) => Math.min(10, (clock?.turn_seconds ?? 40) / 4);

/** Count the mover's clock down: the turn clock, then their bank; shrink the bar; turn it red. */
function tick() {
  for (const box of root.querySelectorAll(".clockbox[data-deadline]")) {
    const clock = box.querySelector(".clock");
    const now = clockNow(box.dataset, Date.now()); // held at the break's end while it runs
    const shown = running(box.dataset, now);
    clock.textContent = shown.text;
    clock.classList.toggle("bank", shown.bank);
    const left = (Date.parse(box.dataset.deadline) - now) / 1000;
    const turnLeft = (Date.parse(box.dataset.turnEnds || box.dataset.deadline) - now) / 1000;
    const whole = shown.bank ? Number(box.dataset.bank) || 1 : Number(box.dataset.turnSeconds) || 1;
    const part = shown.bank ? left : Math.min(turnLeft, left); // the deadline is the hard end
    box.style.setProperty("--left", String(Math.max(0, Math.min(1, part / whole))));
    const low = left <= lowAt(ui.frame.clock);
    box.classList.toggle("low", low);
    if (low && box.closest(".player")?.dataset.player === ui.frame.view?.you && !ui.lowWarned) {
      ui.lowWarned = true;
      notice(`Little time left: ${plural(Math.max(0, Math.ceil(left)), "second")}.`);
      play(ui.settings, root.dataset.sounds, "low");
    }
  }
  tickBreak();
}

let toastTimer;
function toast(message) {
  const box = $("toast");
  box.textContent = message;
  box.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => (box.hidden = true), 8000);
}

let noticeTimer;
function notice(message) {
  const box = $("notice");
  box.textContent = message;
  box.hidden = false;
  clearTimeout(noticeTimer);
  noticeTimer = setTimeout(() => (box.hidden = true), 10000);
}

/** Draw the moves a frame adds to the log; a gap asks the server for the whole list again. */
function takeMoves(message) {
  const fresh = ui.log.take(message);
  if (fresh === "sync") {
    socket.send({ type: "sync" });
    return [];
  }
  if (fresh.length === 0) return fresh;
  const box = $("log");
  const stuck = box.scrollHeight - box.scrollTop - box.clientHeight < 24;
  $("log-lines").append(...fresh.map(draw.logLine));
  if (stuck) box.scrollTop = box.scrollHeight;
  return fresh;
}

/** What just happened, from the frame before and the frame now. */
function notice_changes(before, after, moves) {
  const you = after.you;
  const mine = after.turn === you && after.phase !== "game_over" && Boolean(me(after));
  const hand = me(after)?.hand;
  if (mine && !ui.mine) {
    $("hand-panel").classList.remove("flash");
    void $("hand-panel").offsetWidth; // restart the animation
    $("hand-panel").classList.add("flash");
    play(ui.settings, root.dataset.sounds, "turn");
  }
  if (!mine) ui.drawn.clear();
  if (mine && after.phase === "draw") ui.drawnFrom = hand ? [...hand] : null;
  if (mine && after.phase === "play" && ui.drawnFrom && hand) {
    const codes = added(hand, ui.drawnFrom);
    const keys = handEntries(hand);
    ui.drawn = new Set(codes.map((c) => [...keys].reverse().find((e) => e.code === c)?.key).filter(Boolean));
    ui.drawnFrom = null;
    // A draw made from the keyboard (nothing focused, or the pile) hands the focus to the card.
    const first = [...ui.drawn][0];
    const active = document.activeElement;
    if (first && (!active || active === document.body || active.closest("#pile"))) {
      ui.handFocus = first;
      ui.focusHand = true;
    }
  }
  if (!mine || ui.mine !== mine) ui.lowWarned = false;
  ui.mine = mine;
  if (before) {
    const pileGrew = after.discard.length === before.discard.length + 1;
    const counts = new Map(before.melds.map((m) => [m.id, m.cards.length]));
    const melds = new Set(after.melds.filter((m) => (counts.get(m.id) ?? 0) < m.cards.length).map((m) => m.id));
    if (pileGrew || melds.size) ui.fresh = { pile: pileGrew, melds, until: Date.now() + FRESH_MS };
    const was = me(before)?.timeouts ?? 0;
    const now = me(after)?.timeouts ?? 0;
    const timeout = moves.find((m) => m.kind === "timeout" && m.player === you);
    if (timeout) notice(timeout.text);
    else if (now > was && !Array.isArray(ui.frame.moves)) notice("Time ran out: the server played your turn.");
  }
}

function onMessage(message) {
  if (chat.handle(message)) return;
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
  const before = ui.frame.view;
  const moves = takeMoves(message);
  ui.frame = { ...ui.frame, ...message };
  if (message.view) {
    prune(message.view, ownAnswer);
    notice_changes(before, message.view, moves);
  }
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
const chat = wireChat(root.dataset.user, (message) => socket.send(message));
const socket = connect(`${scheme}://${location.host}/ws/tables/${root.dataset.table}/?chat=1`, { onMessage, onStatus });

function act(name) {
  const action = choices(ui.frame.view)[name];
  if (!action) return false;
  if (!socket.send({ type: "action", action, version: ui.frame.version, client_id: uuid() })) {
    toast("Not connected: the action was not sent. Reconnecting\u2026");
    return false;
  }
  ui.pending = true;
  render();
  return true;
}

function answerRematch(accept) {
  if (!socket.send({ type: "rematch", accept, client_id: uuid() })) toast("Not connected: try again once reconnected.");
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

function setSort(by) {
  ui.sort = by;
  try {
    localStorage.removeItem(ORDER_KEY);
  } catch {
    // No storage: nothing was kept.
  }
  render();
}

/** Put the dragged card (and the rest of the selection with it) before `beforeKey`. */
function reorder(key, beforeKey) {
  const view = ui.frame.view;
  const keys = ordered(view).map((e) => e.key);
  const moving = ui.selected.has(key) ? keys.filter((k) => ui.selected.has(k)) : [key];
  const rest = keys.filter((k) => !moving.includes(k));
  const at = beforeKey === null ? rest.length : rest.indexOf(beforeKey);
  rest.splice(at < 0 ? rest.length : at, 0, ...moving);
  ui.sort = "custom";
  ui.order = rest;
  try {
    localStorage.setItem(ORDER_KEY, JSON.stringify(rest));
  } catch {
    // No storage: the order lasts for this page.
  }
  render();
}

/** A drop or a key plays the dragged card with the selection (or the card alone). */
function withCard(key) {
  if (!ui.selected.has(key)) ui.selected = new Set([key]);
}

if (manager) {
  $("pause").addEventListener("click", () => manageClock("pause"));
  $("resume").addEventListener("click", () => manageClock("resume"));
}
$("back").addEventListener("click", comeBack);
$("draw-stock").addEventListener("click", () => act("draw"));
$("take").addEventListener("click", () => act("take"));
for (const name of ["meld", "layoff", "discard", "rummy"]) $(name).addEventListener("click", () => act(name));
for (const by of ["suit", "rank"]) $(`sort-${by}`).addEventListener("click", () => setSort(by));
// The side column's two tabs: the move log and the chat (chat.js), with a count of unread.
function wireChat(me, send) {
  let unread = 0;
  const badge = $("chat-unread");
  const showing = () => !$("chat").hidden && (!matchMedia("(max-width: 40rem)").matches || $("side").classList.contains("open"));
  const panel = createChat($("chat"), {
    send, me, csrf: $("chat").dataset.csrf,
    onActivity() {
      if (showing()) return;
      unread += 1;
      badge.textContent = `(${unread})`;
      badge.hidden = false;
    },
  });
  const pick = (chatTab) => {
    $("chat").hidden = !chatTab;
    $("log-panel").hidden = chatTab;
    $("tab-chat").setAttribute("aria-pressed", String(chatTab));
    $("tab-log").setAttribute("aria-pressed", String(!chatTab));
    if (chatTab) {
      unread = 0;
      badge.hidden = true;
    }
    panel.shown(chatTab);
  };
  panel.shown(false); // the move log is the side's first tab
  $("tab-chat").addEventListener("click", () => pick(true));
  $("tab-log").addEventListener("click", () => pick(false));
  return panel;
}

$("log-toggle").addEventListener("click", () => {
  const open = $("side").classList.toggle("open");
  $("log-toggle").setAttribute("aria-expanded", String(open));
});
$("help-open").addEventListener("click", () => $("help").showModal());
for (const [id, name] of [
  ["opt-sound", "sound"],
  ["opt-four", "four"],
]) {
  $(id).checked = Boolean(ui.settings[name]);
  $(id).addEventListener("change", () => {
    ui.settings[name] = $(id).checked;
    saveSettings(ui.settings);
    root.classList.toggle("four-colour", ui.settings.four);
  });
}
root.classList.toggle("four-colour", ui.settings.four);

wireDrops(
  { hand: $("hand"), pile: $("pile"), melds: $("melds").parentElement },
  {
    key: () => ui.dragKey,
    reorder,
    discard: (key) => {
      withCard(key);
      if (!act("discard")) render();
    },
    meld: (key) => {
      withCard(key);
      if (!act("meld")) render();
    },
    layoff: (key, id) => {
      withCard(key);
      ui.target = id;
      if (!act("layoff")) render();
    },
  },
);

wireKeys({
  root,
  view: () => ui.frame.view,
  act,
  render,
  help: () => $("help").showModal(),
  sort: () => setSort(ui.sort === "suit" ? "rank" : "suit"),
  clear: () => {
    ui.selected.clear();
    ui.target = null;
    render();
  },
  depth: (count) => {
    ui.depth = count;
    render();
    $("pile").querySelector(`[data-key="pile:${count}"]`)?.focus();
  },
  currentDepth: () => ui.depth,
  layoffOn: (id) => {
    ui.target = id;
    if (!act("layoff")) render();
  },
  say: notice,
});

if (ui.frame.view) {
  prune(ui.frame.view, false);
  notice_changes(null, ui.frame.view, takeMoves(ui.frame));
}
render();
setInterval(tick, 250);
