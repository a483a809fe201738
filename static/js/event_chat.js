// The event page's chat: chat.js on its own connection to the event socket, with ?chat=1.
// (event.js keeps the page's live sections on its own connection and reads no chat frames.)

import { createChat } from "./chat.js";
import { connect } from "./socket.js";

const root = document.getElementById("event-chat");
const scheme = location.protocol === "https:" ? "wss" : "ws";
let socket = null;
const chat = createChat(root, {
  send: (message) => socket.send(message),
  me: root.dataset.user,
  csrf: root.dataset.csrf,
});
socket = connect(`${scheme}://${location.host}${root.dataset.socket}`, {
  onMessage: (frame) => chat.handle(frame),
  onStatus: (open) => { root.dataset.connected = String(open); },
});
