"""Make the table page's two sounds (static/sounds/): a soft two-note chime for "your turn" and a
lower double tick for "little time left". Plain sine tones with a short fade, written with the
standard library's ``wave`` so nothing is downloaded; run ``python tools/make_sounds.py``."""

from __future__ import annotations

import math
import struct
import wave
from pathlib import Path

RATE = 22050
OUT = Path(__file__).resolve().parent.parent / "static" / "sounds"


def tone(freq: float, seconds: float, volume: float = 0.3) -> list[int]:
    n = int(RATE * seconds)
    fade = int(RATE * 0.02)
    samples = []
    for i in range(n):
        envelope = min(1.0, i / fade, (n - i) / fade) * math.exp(-3 * i / n)
        samples.append(int(32767 * volume * envelope * math.sin(2 * math.pi * freq * i / RATE)))
    return samples


def silence(seconds: float) -> list[int]:
    return [0] * int(RATE * seconds)


def write(name: str, samples: list[int]) -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    with wave.open(str(OUT / f"{name}.wav"), "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(RATE)
        out.writeframes(struct.pack(f"<{len(samples)}h", *samples))


def main() -> None:
    write("turn", tone(660, 0.14) + tone(880, 0.22))
    write("low", tone(440, 0.09, 0.25) + silence(0.08) + tone(440, 0.09, 0.25))


if __name__ == "__main__":
    main()
