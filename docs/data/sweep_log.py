# Reads papshim-bench sweep logs (the text tables) for the scripts of the data directories.
import re

_SIZE = re.compile(r'(\S+ [KM]iB) vector')
# pattern and delay start a point's first row; then algorithm, mean e, e/native, mean r,
# r/native, LB, excess, excess/native.
_ROW = re.compile(r'(one-late|staircase|uniform)?\s+(0|\d+tau|\d+m?s)?\s*([a-z_]+)\s+([\d.]+ [mu]?s)\s+([\d.]+)\s+'
                  r'([\d.]+ [mu]?s)\s+([\d.]+)\s+(\S+ [mu]?s)\s+(-?[\d.]+ [mu]?s)\s+(-?[\d.]+)')
_RAN = re.compile(r'\s+what ran: (.*)')


def sweep_rows(path):
    """Yields (size, pattern, delay, name, cells) for every algorithm row of one log, with
    cells e_ratio, r_ratio, excess_ratio as text; and (size, pattern, delay, 'what ran', text)
    for the line saying what auto ran."""
    size = pattern = delay = None
    for line in open(path):
        s = _SIZE.match(line)
        if s:
            size = s.group(1)
            continue
        m = _ROW.match(line)
        if m:
            pattern = m.group(1) or pattern
            delay = m.group(2) or delay
            yield size, pattern, delay, m.group(3), {"e": m.group(5), "r": m.group(7), "excess": m.group(10)}
        r = _RAN.match(line)
        if r:
            yield size, pattern, delay, "what ran", r.group(1)
