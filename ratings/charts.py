"""Line charts as inline SVG, drawn on the server: pure, no Django, no JavaScript, no CDN.

``line_chart`` turns ``(x, y)`` points (x a number such as a game's index, or a datetime) into
one ``<svg>`` string: a polyline over horizontal gridlines at round values, a few labelled ticks
on each axis, the lowest and highest points marked and labelled, and a ``<title>``/``<desc>`` for
screen readers. Every piece of text is escaped, so the string is safe to insert into a page as
is. No points draw an empty frame with a message; one point draws a single dot.

>>> svg = line_chart([(1, 1500.0), (2, 1516.0), (3, 1508.0)], title="Rating")
>>> svg.startswith("<svg") and svg.count("<polyline") == 1
True
>>> nice_ticks(1483, 1562)
[1480.0, 1500.0, 1520.0, 1540.0, 1560.0, 1580.0]
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from html import escape

X = float | datetime
Point = tuple[X, float]

#: Colours spelled out on the elements, so the chart reads the same without the site's CSS.
LINE = "#166534"
GRID = "#d4d4c8"
INK = "#55554f"
MARK = "#b45309"

#: The share of the values' span left free above and below them, where the max and min labels
#: go (about 20 of the default plot's 192 units once gridlines round the range out).
HEADROOM = 0.12

#: A lone point in time is drawn in the middle of a day's span.
HALF_DAY = 43200.0


@dataclass(frozen=True)
class Frame:
    """The drawing's size in SVG units and the margins that hold the axis labels."""

    width: int = 640
    height: int = 240
    left: int = 52
    right: int = 16
    top: int = 16
    bottom: int = 32

    @property
    def x0(self) -> float:
        return float(self.left)

    @property
    def x1(self) -> float:
        return float(self.width - self.right)

    @property
    def y0(self) -> float:
        """The bottom of the plot (SVG's y grows downwards)."""
        return float(self.height - self.bottom)

    @property
    def y1(self) -> float:
        return float(self.top)


def nice_ticks(low: float, high: float, count: int = 4, whole: bool = False) -> list[float]:
    """Round values from at or below ``low`` to at or above ``high``, about ``count`` steps
    apart, each step 1, 2 or 5 times a power of ten (at least 1 when ``whole``).

    >>> nice_ticks(0, 10)
    [0.0, 5.0, 10.0]
    >>> nice_ticks(1, 3, whole=True)
    [1.0, 2.0, 3.0]
    """
    if high < low:
        low, high = high, low
    if high == low:
        return [float(low)]
    rough = (high - low) / max(count, 1)
    power = 10.0 ** math.floor(math.log10(rough))
    step = next(m * power for m in (1, 2, 5, 10) if m * power >= rough)
    if whole:
        step = max(1.0, float(math.ceil(step)))
    first = math.floor(low / step)
    last = math.ceil(high / step)
    return [float(i * step) for i in range(first, last + 1)]


def whole_number(value: float) -> str:
    """The default label of a y value: rounded to a whole number, halves up.

    >>> whole_number(1516.5), whole_number(-0.4)
    ('1517', '0')
    """
    return str(math.floor(value + 0.5))


def line_chart(
    points: Sequence[Point],
    *,
    title: str,
    frame: Frame | None = None,
    y_format: Callable[[float], str] = whole_number,
    empty: str = "Nothing to draw yet",
) -> str:
    """The points (in x order) as an SVG line chart; see the module's docstring."""
    f = frame or Frame()
    parts = [_open(f, title), f"<title>{escape(title)}</title>"]
    if not points:
        parts.append(f"<desc>{escape(empty)}</desc>")
        parts.append(_box(f))
        middle = (f.x0 + f.x1) / 2, (f.y0 + f.y1) / 2
        parts.append(_text(middle[0], middle[1], empty, anchor="middle", css="chart-empty"))
        return "".join([*parts, "</svg>"])
    xs = [_number(x) for x, _ in points]
    ys = [float(y) for _, y in points]
    x_ticks = _x_ticks(points, xs)
    y_ticks = nice_ticks(*_headroom(*_padded(min(ys), max(ys))), count=5)
    place = _placer(f, (x_ticks[0][0], x_ticks[-1][0]), (y_ticks[0], y_ticks[-1]))
    parts.append(f"<desc>{escape(_describe(ys, y_format))}</desc>")
    parts.extend(_y_grid(f, y_ticks, place, y_format))
    parts.extend(_x_axis(f, x_ticks, place))
    parts.append(_box(f))
    drawn = [place(x, y) for x, y in zip(xs, ys, strict=True)]
    if len(drawn) > 1:
        coords = " ".join(f"{x:.1f},{y:.1f}" for x, y in drawn)
        parts.append(
            f'<polyline class="chart-line" points="{coords}" fill="none" stroke="{LINE}" '
            'stroke-width="2" stroke-linejoin="round"/>'
        )
    parts.extend(_extremes(f, drawn, ys, y_format))
    return "".join([*parts, "</svg>"])


def _open(f: Frame, title: str) -> str:
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" class="chart" role="img" '
        f'viewBox="0 0 {f.width} {f.height}" width="{f.width}" height="{f.height}" '
        f'aria-label="{escape(title)}" font-family="system-ui, sans-serif" font-size="12">'
    )


def _number(x: X) -> float:
    return x.timestamp() if isinstance(x, datetime) else float(x)


def _padded(low: float, high: float, pad: float | None = None) -> tuple[float, float]:
    """The values' range, widened by ``pad`` (default: 1% of the value, at least 1) when it
    would be empty (one value, or all equal)."""
    if high == low:
        pad = max(abs(low) * 0.01, 1.0) if pad is None else pad
        return low - pad, high + pad
    return low, high


def _headroom(low: float, high: float) -> tuple[float, float]:
    """Room above the highest value and below the lowest for their labels."""
    room = (high - low) * HEADROOM
    return low - room, high + room


def _x_ticks(points: Sequence[Point], xs: list[float]) -> list[tuple[float, str]]:
    """``(x, label)`` ticks: round numbers for numbers, five evenly spaced dates for times."""
    times = isinstance(points[0][0], datetime)
    low, high = _padded(min(xs), max(xs), HALF_DAY if times else None)
    if not times:
        whole = all(x.is_integer() for x in xs)
        return [(t, _plain(t)) for t in nice_ticks(low, high, whole=whole)]
    pattern = "%Y-%m-%d" if high - low >= 2 * 86400 else "%m-%d %H:%M"
    steps = [low + (high - low) * i / 4 for i in range(5)]
    return [(t, datetime.fromtimestamp(t, UTC).strftime(pattern)) for t in steps]


def _plain(value: float) -> str:
    return str(int(value)) if value.is_integer() else f"{value:g}"


def _placer(
    f: Frame, x_range: tuple[float, float], y_range: tuple[float, float]
) -> Callable[[float, float], tuple[float, float]]:
    """Data coordinates to SVG coordinates inside the frame's plot area."""
    (xa, xb), (ya, yb) = x_range, y_range
    x_span = (xb - xa) or 1.0
    y_span = (yb - ya) or 1.0

    def place(x: float, y: float) -> tuple[float, float]:
        px = f.x0 + (x - xa) / x_span * (f.x1 - f.x0)
        py = f.y0 - (y - ya) / y_span * (f.y0 - f.y1)
        return px, py

    return place


def _describe(ys: list[float], y_format: Callable[[float], str]) -> str:
    if len(ys) == 1:
        return f"One point: {y_format(ys[0])}"
    return (
        f"{len(ys)} points from {y_format(ys[0])} to {y_format(ys[-1])}; "
        f"lowest {y_format(min(ys))}, highest {y_format(max(ys))}"
    )


def _y_grid(
    f: Frame,
    ticks: list[float],
    place: Callable[[float, float], tuple[float, float]],
    fmt: Callable[[float], str],
) -> list[str]:
    out = []
    for tick in ticks:
        _, y = place(0.0, tick)
        out.append(_line(f.x0, y, f.x1, y, GRID, "chart-grid"))
        out.append(_text(f.x0 - 6, y + 4, fmt(tick), anchor="end"))
    return out


def _x_axis(
    f: Frame, ticks: list[tuple[float, str]], place: Callable[[float, float], tuple[float, float]]
) -> list[str]:
    out = []
    for tick, label in ticks:
        x, _ = place(tick, 0.0)
        out.append(_line(x, f.y0, x, f.y0 + 4, INK, "chart-tick"))
        out.append(_text(x, f.y0 + 18, label, anchor="middle"))
    return out


def _box(f: Frame) -> str:
    """The axes: the plot's left and bottom edges."""
    return (
        f'<path class="chart-axes" d="M{f.x0:.1f},{f.y1:.1f} V{f.y0:.1f} H{f.x1:.1f}" '
        f'fill="none" stroke="{INK}"/>'
    )


def _extremes(
    f: Frame, drawn: list[tuple[float, float]], ys: list[float], fmt: Callable[[float], str]
) -> list[str]:
    """Dots and labels at the highest point (``max``) and, if lower, the lowest (``min``)."""
    top = ys.index(max(ys))
    marks = [(top, f"max {fmt(ys[top])}", -8.0)]
    bottom = ys.index(min(ys))
    if ys[bottom] < ys[top]:
        marks.append((bottom, f"min {fmt(ys[bottom])}", 16.0))
    out = []
    for i, label, dy in marks:
        x, y = drawn[i]
        anchor = "end" if x > (f.x0 + f.x1) / 2 else "start"
        out.append(f'<circle class="chart-mark" cx="{x:.1f}" cy="{y:.1f}" r="3.5" fill="{MARK}"/>')
        out.append(_text(x, y + dy, label, anchor=anchor, css="chart-extreme"))
    return out


def _line(xa: float, ya: float, xb: float, yb: float, colour: str, css: str) -> str:
    return (
        f'<line class="{css}" x1="{xa:.1f}" y1="{ya:.1f}" x2="{xb:.1f}" y2="{yb:.1f}" '
        f'stroke="{colour}"/>'
    )


def _text(x: float, y: float, text: str, *, anchor: str, css: str = "chart-label") -> str:
    return (
        f'<text class="{css}" x="{x:.1f}" y="{y:.1f}" text-anchor="{anchor}" fill="{INK}">'
        f"{escape(text)}</text>"
    )
