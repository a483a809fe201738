"""The parts of ``bench/load.py``: the statement counter loaded into the served processes, the
ASGI app that loads it, and the meter of the whole stack."""
