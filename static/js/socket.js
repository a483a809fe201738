// A WebSocket that reconnects by itself, waiting 1 s, 2 s, 4 s... (at most 10 s) between tries,
// and asks for a fresh state ({"type": "sync"}) each time it is back. A close with 1012 (service
// restart: the server is going away on purpose, and the proxy sends the next try to a server
// that stays) is answered at once, within a random half second so a restarted server's sockets
// do not all come back in the same instant.

const FIRST_DELAY = 1000;
const MAX_DELAY = 10000;
const SERVICE_RESTART = 1012;
const RESTART_SPREAD = 500;

/**
 * Open `url` and keep it open. `onMessage(data)` gets each parsed message; `onStatus(open)` is
 * told when the connection comes up (true) or goes down (false).
 */
export function connect(url, { onMessage, onStatus }) {
  let socket;
  let delay = FIRST_DELAY;
  let reconnecting = false;

  function open() {
    socket = new WebSocket(url);
    socket.addEventListener("open", () => {
      // The server sends the state on connect; the sync makes sure of it after a gap.
      if (reconnecting) socket.send(JSON.stringify({ type: "sync" }));
      delay = FIRST_DELAY;
      onStatus(true);
    });
    socket.addEventListener("message", (event) => onMessage(JSON.parse(event.data)));
    socket.addEventListener("close", (event) => {
      reconnecting = true;
      onStatus(false);
      if (event.code === SERVICE_RESTART) {
        setTimeout(open, Math.random() * RESTART_SPREAD);
        return;
      }
      setTimeout(open, delay);
      delay = Math.min(delay * 2, MAX_DELAY);
    });
  }

  open();
  return {
    /** Send `message` as JSON; false when the socket is not open. */
    send(message) {
      if (socket.readyState !== WebSocket.OPEN) return false;
      socket.send(JSON.stringify(message));
      return true;
    },
  };
}
