// The table's keys (shown by "?"): D draw, T take (then Left/Right for how deep, Enter), M meld,
// L lay off (then the meld's number), X discard, R Rummy!, Left/Right through the hand, Space
// select (the focused card's own button), Esc clear, S sort. Keys typed into a field, or with
// Ctrl, Alt or Meta held, are left alone.

/** Wire the keys to the page; `page` gives what they read and do (table.js). */
export function wireKeys(page) {
  let mode = null; // "take" after T, "layoff" after L
  let digits = "";
  let digitTimer;

  const inHand = (node) => node?.closest?.("#hand") && node.matches("button.card");
  const inPile = (node) => node?.closest?.("#pile") && node.matches("button.card");

  function moveIn(container, node, step) {
    const cards = [...container.querySelectorAll("button.card")];
    const next = cards[cards.indexOf(node) + step];
    if (next) {
      next.focus();
      if (container.id === "pile") page.depth(Number(next.dataset.key.slice(5)));
    }
  }

  function layoffDigit(key) {
    digits += key;
    clearTimeout(digitTimer);
    const ids = (page.view()?.melds ?? []).map((m) => String(m.id));
    // Wait for a second digit only while a longer meld number could still be meant.
    const longer = ids.some((id) => id.length > digits.length && id.startsWith(digits));
    const done = () => {
      mode = null;
      const id = Number(digits);
      digits = "";
      if (ids.includes(String(id))) page.layoffOn(id);
      else page.say(`There is no meld #${id}.`);
    };
    if (longer) digitTimer = setTimeout(done, 700);
    else done();
  }

  document.addEventListener("keydown", (event) => {
    const target = event.target;
    if (event.ctrlKey || event.altKey || event.metaKey) return;
    if (target.closest?.("input, select, textarea, dialog")) return;
    const view = page.view();
    const key = event.key;
    if (key === "?") {
      event.preventDefault();
      page.help();
      return;
    }
    if (!view) return;
    if (mode === "layoff" && /^[0-9]$/.test(key)) {
      event.preventDefault();
      layoffDigit(key);
      return;
    }
    if (key === "ArrowLeft" || key === "ArrowRight") {
      const step = key === "ArrowLeft" ? -1 : 1;
      if (inHand(target)) moveIn(target.parentElement, target, step);
      else if (inPile(target)) moveIn(target.parentElement, target, step);
      else return;
      event.preventDefault();
      return;
    }
    if (key === "Enter" && inPile(target)) {
      event.preventDefault();
      page.depth(Number(target.dataset.key.slice(5)));
      mode = null;
      page.act("take");
      return;
    }
    const lower = key.length === 1 ? key.toLowerCase() : key;
    const actions = { d: "draw", m: "meld", x: "discard", r: "rummy" };
    if (actions[lower]) {
      event.preventDefault();
      page.act(actions[lower]);
    } else if (lower === "t") {
      event.preventDefault();
      mode = "take";
      page.depth(page.currentDepth());
    } else if (lower === "l") {
      event.preventDefault();
      mode = "layoff";
      digits = "";
      page.say("Lay off on which meld? Type its number.");
    } else if (lower === "s") {
      event.preventDefault();
      page.sort();
    } else if (key === "Escape") {
      mode = null;
      page.clear();
    }
  });
}
