// DOM builders for the parts of the table page that change with every state: players, discard
// pile, melds, hand, scores, deals and the final placements. They build nodes; table.js decides.

import { face } from "./cards.js";
import { frozen, mmss } from "./clock.js";

/** A new element: `props` become attributes (`on*` listeners, `class`, `dataset`). */
export function el(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(props)) {
    if (value === undefined || value === null) continue;
    if (name.startsWith("on")) node.addEventListener(name.slice(2), value);
    else if (name === "class") node.className = value;
    else if (name === "dataset") Object.assign(node.dataset, value);
    else node.setAttribute(name, String(value));
  }
  node.append(...children.flat().filter((c) => c !== null && c !== undefined && c !== false));
  return node;
}

function faceNodes(code) {
  const f = face(code);
  return [el("span", { class: "rank" }, f.rank), el("span", { class: "suit" }, f.symbol)];
}

function cardClass(code, extra = "") {
  return `card${face(code).red ? " red" : ""}${extra ? ` ${extra}` : ""}`;
}

/** A card as a toggle button (`pressed`), labelled with its spoken name. */
export function cardButton(code, { key, pressed, label, extra, onclick }) {
  return el(
    "button",
    {
      type: "button",
      class: cardClass(code, extra),
      "aria-pressed": pressed,
      "aria-label": label ?? face(code).name,
      dataset: { key, card: code },
      onclick,
    },
    faceNodes(code),
  );
}

/** A card nobody may click (the discard pile as a spectator sees it). */
export function cardTile(code) {
  return el("span", { class: cardClass(code), role: "img", "aria-label": face(code).name }, faceNodes(code));
}

/** A card of a meld: a joker shows `*` and the card it stands for; each names its player. */
function meldCard({ card, as, by }) {
  const joker = card === "*";
  const name = joker ? `joker as ${face(as).name}` : face(card).name;
  const shown = joker
    ? [el("span", { class: "rank" }, "*"), el("span", { class: "as" }, as)]
    : faceNodes(card);
  return el(
    "span",
    { class: cardClass(joker ? as : card, joker ? "joker" : ""), role: "img", title: `${name}, played by ${by}`, "aria-label": `${name} by ${by}` },
    shown,
    el("span", { class: "by", "aria-hidden": "true" }, by),
  );
}

/** One meld: a toggle button choosing it for a lay-off (players), plain for spectators. */
export function meld(m, { choosable, chosen, onclick }) {
  const head = el("span", { class: "meld-head" }, `#${m.id} ${m.kind}`);
  const cards = el("span", { class: "meld-cards" }, m.cards.map(meldCard));
  if (!choosable) return el("li", { class: "meld", dataset: { meld: m.id } }, head, cards);
  const button = el(
    "button",
    { type: "button", class: "meld-button", "aria-pressed": chosen, dataset: { key: `meld:${m.id}` }, onclick },
    head,
    cards,
  );
  return el("li", { class: "meld", dataset: { meld: m.id } }, button);
}

/**
 * The mover's clock: frozen while paused, else counting down (table.js ticks every element with
 * a `data-deadline`), or a plain "to play" when the turn has no deadline.
 */
function moverClock(name, clock, deadline) {
  if (clock?.paused) {
    const shown = frozen(clock.remaining, clock.banks?.[name] ?? 0);
    return el("span", { class: shown.bank ? "clock bank paused" : "clock paused" }, shown.text);
  }
  if (!deadline) return el("span", { class: "clock" }, "to play");
  return el("span", { class: "clock", dataset: { deadline, turnEnds: clock?.turn_ends ?? "" } }, "to play");
}

/** A player's time bank as of the turn's start, on tables that give one. */
function bankLeft(name, clock) {
  if (!clock?.time_bank_seconds) return null;
  const left = clock.banks?.[name] ?? 0;
  return el("span", { class: "bank-left", title: "time bank left" }, `bank ${mmss(left)}`);
}

/** The players around the table: connection, name, cards, score, bank, absence, turn and clock. */
export function players(view, clock, deadline) {
  return view.players.map((p) => {
    const turn = p.name === view.turn;
    const size = Array.isArray(p.hand) ? p.hand.length : p.hand;
    const online = p.connected ? "connected" : "not connected";
    return el(
      "li",
      { class: turn ? "player turn" : "player", "aria-current": turn ? "true" : null, dataset: { player: p.name } },
      el("span", { class: p.connected ? "dot on" : "dot", role: "img", title: online, "aria-label": online }),
      el("strong", {}, p.name),
      p.name === view.you ? " (you)" : "",
      el("span", { class: "meta" }, `${size} cards · ${p.score} points`),
      bankLeft(p.name, clock),
      p.absent ? el("span", { class: "badge absent", title: "their turns are played by the server" }, "absent") : null,
      turn ? moverClock(p.name, clock, deadline) : null,
    );
  });
}

const signed = (n) => (n > 0 ? `+${n}` : String(n));

/** The scores table: a row per finished hand (net, melded, in hand), then the totals. */
export function scores(view) {
  const names = view.players.map((p) => p.name);
  const cell = (hand, name) => {
    const s = hand.scores[name];
    const out = hand.went_out === name ? ", went out" : "";
    return el("td", {}, signed(s.net), el("small", {}, ` (${s.melded} melded, ${s.in_hand} in hand${out})`));
  };
  const rows = view.hands.map((h) =>
    el("tr", { dataset: { hand: h.number } }, el("th", { scope: "row" }, `Hand ${h.number}`), names.map((n) => cell(h, n))),
  );
  if (rows.length === 0) {
    rows.push(el("tr", {}, el("td", { colspan: names.length + 1 }, "No hand has been scored yet.")));
  }
  return [
    el("caption", {}, "Points per hand and totals"),
    el("thead", {}, el("tr", {}, el("th", { scope: "col" }, "Hand"), names.map((n) => el("th", { scope: "col" }, n)))),
    el("tbody", {}, rows),
    el("tfoot", {}, el("tr", {}, el("th", { scope: "row" }, "Total"), view.players.map((p) => el("td", {}, String(p.score))))),
  ];
}

/** Each hand's commitment, and its seed with the command that re-deals it once revealed. */
export function deals(view, rules) {
  const names = view.players.map((p) => p.name).join(",");
  const options = rules ? ` --rules '${JSON.stringify(rules)}'` : "";
  return view.deals.map((d) =>
    el(
      "li",
      { dataset: { hand: d.hand } },
      `Hand ${d.hand}: commitment `,
      el("code", { class: "hex" }, d.commitment),
      d.seed
        ? [", seed ", el("code", { class: "hex" }, d.seed), el("br"), el("code", { class: "command" }, `python -m games.engine verify-deal ${d.seed} ${names} ${d.hand}${options}`)]
        : " (the seed is shown once the hand is over)",
    ),
  );
}

/** Final placements as the server placed them (the view's `placements`, best first). */
export function placements(view) {
  return (view.placements ?? []).map((p) => el("li", { value: p.place }, `${p.player}: ${p.score} points`));
}
