"""ratings.charts: the server-drawn SVG line chart (no database, no browser)."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from datetime import UTC, datetime, timedelta

import pytest

from ratings.charts import Frame, line_chart, nice_ticks, whole_number

SVG = "{http://www.w3.org/2000/svg}"
FRAME = Frame()


def parsed(svg: str) -> ET.Element:
    """The chart as XML: it must be well-formed to be inlined in a page."""
    root = ET.fromstring(svg)
    assert root.tag == f"{SVG}svg"
    return root


def polyline_points(root: ET.Element) -> list[tuple[float, float]]:
    (line,) = root.iter(f"{SVG}polyline")
    pairs = line.attrib["points"].split()
    return [(float(x), float(y)) for x, y in (p.split(",") for p in pairs)]


def texts(root: ET.Element) -> list[str]:
    return [t.text or "" for t in root.iter(f"{SVG}text")]


def x_labels(root: ET.Element) -> list[str]:
    """The x axis's tick labels (centred under their ticks)."""
    return [t.text or "" for t in root.iter(f"{SVG}text") if t.attrib["text-anchor"] == "middle"]


@pytest.mark.parametrize(
    ("low", "high", "whole", "ticks"),
    [
        (0, 10, False, [0, 5, 10]),
        (1483, 1562, False, [1480, 1500, 1520, 1540, 1560, 1580]),
        (1, 3, True, [1, 2, 3]),
        (1, 200, True, [0, 50, 100, 150, 200]),
        (0.2, 0.9, False, [0.2, 0.4, 0.6, 0.8, 1.0]),
        (10, 0, False, [0, 5, 10]),  # given the wrong way round
        (7, 7, False, [7]),
    ],
)
def test_nice_ticks_are_round_and_cover_the_range(
    low: float, high: float, whole: bool, ticks: list[float]
) -> None:
    assert nice_ticks(low, high, whole=whole) == pytest.approx(ticks)


def test_whole_number_rounds_halves_up() -> None:
    assert [whole_number(v) for v in (1516.5, 1516.49, 1499.5, -0.5)] == [
        "1517",
        "1516",
        "1500",
        "0",
    ]


def test_no_points_draw_an_empty_frame_with_the_message() -> None:
    root = parsed(line_chart([], title="Rating in Everyone", empty="No rated games yet"))
    assert not list(root.iter(f"{SVG}polyline"))
    assert "No rated games yet" in texts(root)
    assert root.find(f"{SVG}title").text == "Rating in Everyone"  # type: ignore[union-attr]
    assert root.attrib["role"] == "img"


def test_one_point_is_a_dot_with_its_value() -> None:
    root = parsed(line_chart([(1, 1500.0)], title="Rating"))
    assert not list(root.iter(f"{SVG}polyline"))
    (dot,) = root.iter(f"{SVG}circle")
    assert FRAME.x0 < float(dot.attrib["cx"]) < FRAME.x1  # centred, not on an edge
    assert FRAME.y1 < float(dot.attrib["cy"]) < FRAME.y0
    assert "max 1500" in texts(root)
    assert "min 1500" not in texts(root)
    assert root.find(f"{SVG}desc").text == "One point: 1500"  # type: ignore[union-attr]


def test_the_line_has_one_vertex_per_point_inside_the_plot() -> None:
    ratings = [1500.0, 1516.0, 1508.2, 1530.7, 1490.1, 1521.0]
    root = parsed(line_chart(list(enumerate(ratings, start=1)), title="Rating"))
    vertices = polyline_points(root)
    assert len(vertices) == len(ratings)
    for x, y in vertices:
        assert FRAME.x0 <= x <= FRAME.x1
        assert FRAME.y1 <= y <= FRAME.y0
    xs = [x for x, _ in vertices]
    assert xs == sorted(xs)
    # SVG's y grows downwards: a higher rating is drawn higher up.
    assert vertices[3][1] < vertices[0][1] < vertices[4][1]


def test_gridlines_are_labelled_and_min_and_max_are_marked() -> None:
    ratings = [1500.0, 1516.0, 1483.4, 1561.6]
    root = parsed(line_chart(list(enumerate(ratings)), title="Rating"))
    labels = texts(root)
    for tick in ("1460", "1480", "1500", "1520", "1540", "1560", "1580"):
        assert tick in labels
    assert "max 1562" in labels and "min 1483" in labels
    grid = [g for g in root.iter(f"{SVG}line") if g.attrib["class"] == "chart-grid"]
    assert len(grid) == 7
    # The extremes' labels sit inside the plot, clear of the x axis's labels below it.
    for label in root.iter(f"{SVG}text"):
        if label.attrib["class"] == "chart-extreme":
            assert FRAME.y1 < float(label.attrib["y"]) < FRAME.y0 - 4
    assert len(list(root.iter(f"{SVG}circle"))) == 2
    assert root.find(f"{SVG}desc").text == (  # type: ignore[union-attr]
        "4 points from 1500 to 1562; lowest 1483, highest 1562"
    )


def test_x_ticks_of_game_numbers_are_whole() -> None:
    root = parsed(line_chart([(1, 1500.0), (2, 1510.0), (3, 1505.0)], title="Rating"))
    assert x_labels(root) == ["1", "2", "3"]


def test_a_flat_line_is_drawn_mid_height() -> None:
    root = parsed(line_chart([(1, 1500.0), (2, 1500.0), (3, 1500.0)], title="Rating"))
    ys = {y for _, y in polyline_points(root)}
    assert len(ys) == 1
    assert FRAME.y1 < ys.pop() < FRAME.y0


def test_times_on_the_x_axis_are_labelled_with_dates() -> None:
    start = datetime(2026, 3, 1, tzinfo=UTC)
    points = [(start + timedelta(days=d), 1500.0 + d) for d in range(0, 30, 3)]
    root = parsed(line_chart(points, title="Rating"))
    labels = x_labels(root)
    assert len(labels) == 5 and labels[0] == "2026-03-01" and labels[-1] == "2026-03-28"
    assert all(re.fullmatch(r"2026-03-\d\d", label) for label in labels)
    assert len(polyline_points(root)) == len(points)


def test_one_time_point_spans_a_day() -> None:
    when = datetime(2026, 3, 1, 12, tzinfo=UTC)
    root = parsed(line_chart([(when, 1500.0)], title="Rating"))
    assert x_labels(root)[2] == "03-01 12:00"


def test_text_is_escaped() -> None:
    hostile = '<script>alert("x")</script> & co'
    svg = line_chart([(1, 1500.0), (2, 1510.0)], title=hostile, y_format=lambda v: f"<{v:.0f}>")
    assert "<script>" not in svg
    root = parsed(svg)
    assert root.find(f"{SVG}title").text == hostile  # type: ignore[union-attr]
    assert root.attrib["aria-label"] == hostile
    assert "max <1510>" in texts(root)
    empty = line_chart([], title="t", empty="<b>none</b>")
    assert "<b>" not in empty and "none" in texts(parsed(empty))[0]


def test_a_custom_frame_sets_the_size() -> None:
    root = parsed(line_chart([(1, 1.0), (2, 2.0)], title="t", frame=Frame(width=300, height=120)))
    assert root.attrib["viewBox"] == "0 0 300 120"
    for x, y in polyline_points(root):
        assert x <= 300 and y <= 120
