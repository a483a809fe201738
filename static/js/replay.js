// The replay page of a finished game: every step of GET /api/tables/<id>/replay/ (one per log
// row, with the engine's full state after it), drawn face up. Back and Forward (or the arrow
// keys) step through it; the hand selector jumps to a hand's deal.

import { cardTile, el, meld } from "./render.js";

const $ = (id) => document.getElementById(id);
const root = $("replay-app");
const replay = { steps: [], at: 0, firsts: new Map() }; // firsts: hand -> its first step

const plural = (n, noun) => `${n} ${noun}${n === 1 ? "" : "s"}`;

function seat(player, state) {
  const turn = player.name === state.turn;
  return el(
    "li",
    { class: turn ? "player turn" : "player", "aria-current": turn ? "true" : null, dataset: { player: player.name } },
    el("strong", {}, player.name),
    el("span", { class: "meta" }, `${plural(player.hand.length, "card")} · ${player.score} points`),
    player.absent ? el("span", { class: "badge absent" }, "absent") : null,
    el("div", { class: "hand", role: "group", "aria-label": `${player.name}'s hand` }, player.hand.map(cardTile)),
  );
}

function show(index) {
  const { steps } = replay;
  replay.at = Math.max(0, Math.min(steps.length - 1, index));
  const step = steps[replay.at];
  const state = step.state;
  root.dataset.step = String(replay.at + 1);
  $("step-count").textContent = `step ${replay.at + 1} of ${steps.length}`;
  $("step-move").textContent = step.moves.map((m) => m.text).join("; ");
  $("hand-select").value = String(step.hand);
  $("replay-players").replaceChildren(...state.players.map((p) => seat(p, state)));
  $("stock-size").textContent = plural(state.stock.length, "card");
  const pile = state.discard.length ? state.discard.map(cardTile) : [el("span", { class: "hint" }, "empty")];
  $("pile").replaceChildren(...pile);
  $("melds").replaceChildren(...state.melds.map((m) => meld(m, { choosable: false })));
  $("step-back").disabled = replay.at === 0;
  $("step-forward").disabled = replay.at === steps.length - 1;
}

function handOptions() {
  replay.steps.forEach((step, i) => {
    if (!replay.firsts.has(step.hand)) replay.firsts.set(step.hand, i);
  });
  const options = [...replay.firsts.keys()].map((hand) => el("option", { value: hand }, `Hand ${hand}`));
  $("hand-select").replaceChildren(...options);
}

async function load() {
  const response = await fetch(root.dataset.url, { headers: { Accept: "application/json" } });
  if (!response.ok) {
    $("step-count").textContent = "The replay could not be loaded; reload the page to try again.";
    return;
  }
  replay.steps = (await response.json()).steps;
  if (replay.steps.length === 0) {
    $("step-count").textContent = "This game has no steps to show.";
    return;
  }
  handOptions();
  $("hand-select").disabled = false;
  show(0);
  root.dataset.ready = "true";
}

$("step-back").addEventListener("click", () => show(replay.at - 1));
$("step-forward").addEventListener("click", () => show(replay.at + 1));
$("hand-select").addEventListener("change", (e) => show(replay.firsts.get(Number(e.target.value))));
document.addEventListener("keydown", (e) => {
  // A focused selector takes the arrows for itself; so does anything typed into.
  if (!replay.steps.length || e.target.closest?.("select, input, textarea")) return;
  if (e.altKey || e.ctrlKey || e.metaKey) return;
  if (e.key === "ArrowLeft") show(replay.at - 1);
  else if (e.key === "ArrowRight") show(replay.at + 1);
  else return;
  e.preventDefault();
});

load();
