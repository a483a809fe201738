// The table's settings kept in this browser (localStorage): sounds, off unless switched on, and
// the four-colour deck. The sounds are small WAV files served by this site (static/sounds/,
// made by tools/make_sounds.py).

const KEY = "rummy:settings";

export function loadSettings() {
  try {
    return { sound: false, four: false, ...JSON.parse(localStorage.getItem(KEY) ?? "{}") };
  } catch {
    return { sound: false, four: false };
  }
}

export function saveSettings(settings) {
  try {
    localStorage.setItem(KEY, JSON.stringify(settings));
  } catch {
    // A private window may refuse storage: the settings last for this page only.
  }
}

const cache = {};

/** Play `name` ("turn" or "low") from `base`, if sounds are on; a refused autoplay is no error. */
export function play(settings, base, name) {
  if (!settings.sound) return;
  cache[name] ??= new Audio(`${base}${name}.wav`);
  cache[name].currentTime = 0;
  cache[name].play().catch(() => {});
}
