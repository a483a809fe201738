// Dragging hand cards (HTML drag and drop, which Chromium also drives from a mouse): onto another
// hand card to reorder the hand, onto the discard pile to discard, onto the meld area to meld,
// onto one meld to lay off on it. table.js says what each drop does.

/**
 * Wire the drops. `handlers` has `key()` (the dragged card's key), `reorder(key, beforeKey)`,
 * `discard(key)`, `meld(key)` and `layoff(key, meldId)`.
 */
export function wireDrops({ hand, pile, melds }, handlers) {
  const allow = (event) => {
    if (handlers.key() === null) return;
    event.preventDefault();
    event.currentTarget.classList.add("drop-here");
  };
  const leave = (event) => event.currentTarget.classList.remove("drop-here");
  for (const zone of [hand, pile, melds]) {
    zone.addEventListener("dragover", allow);
    zone.addEventListener("dragleave", leave);
  }
  hand.addEventListener("drop", (event) => {
    leave(event);
    const key = handlers.key();
    if (key === null) return;
    event.preventDefault();
    const over = event.target.closest("button.card");
    let before = over?.dataset.key?.slice(5) ?? null; // "hand:7S#0" -> "7S#0"
    if (over) {
      // Dropped on the right half of a card: the dragged card goes after it.
      const box = over.getBoundingClientRect();
      if (event.clientX > box.left + box.width / 2) before = over.nextElementSibling?.dataset.key?.slice(5) ?? null;
    }
    if (before !== key) handlers.reorder(key, before);
  });
  pile.addEventListener("drop", (event) => {
    leave(event);
    if (handlers.key() === null) return;
    event.preventDefault();
    handlers.discard(handlers.key());
  });
  melds.addEventListener("drop", (event) => {
    leave(event);
    if (handlers.key() === null) return;
    event.preventDefault();
    const onto = event.target.closest("li.meld");
    if (onto) handlers.layoff(handlers.key(), Number(onto.dataset.meld));
    else handlers.meld(handlers.key());
  });
}
