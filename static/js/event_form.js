// The create-event form shows only the chosen format's own fields (its options, and rounds for
// the Swiss formats): each such field's box names its formats in data-formats. Without this
// script every field shows, each saying in its hint which format reads it, and the server
// ignores the fields of other formats.

const form = document.getElementById("event-form");
const format = form && form.querySelector("select[name=format]");

function showChosen() {
  for (const box of form.querySelectorAll("[data-formats]")) {
    const mine = box.dataset.formats.split(" ").includes(format.value);
    box.hidden = !mine;
    for (const field of box.querySelectorAll("input, select, textarea")) field.disabled = !mine;
  }
}

if (format) {
  format.addEventListener("change", showChosen);
  showChosen();
}
