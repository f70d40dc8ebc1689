# Reads papshim-bench sweep logs (the text tables) for the scripts of the data directories.
import re

_SIZE = re.compile(r'(\S+ (?:[KM]iB|B)) vector')
# pattern and delay start a point's first row; then algorithm, mean e, e/native, mean r,
# r/native, LB, excess, excess/native.
_ROW = re.compile(r'(one-late|staircase|uniform)?\s+(0|\d+tau|\d+[nmu]?s)?\s*([a-z_]+)\s+([\d.]+ [nmu]?s)\s+([\d.]+)\s+'
                  r'([\d.]+ [nmu]?s)\s+([\d.]+)\s+(\S+ [nmu]?s)\s+(-?[\d.]+ [nmu]?s)\s+(-?[\d.]+)')
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


def size_label(size_bytes):
    """8 B, 64 KiB, 1 MiB: a vector's size as the logs print it."""
    if size_bytes < 1024:
        return f"{size_bytes} B"
    return f"{size_bytes >> 10} KiB" if size_bytes < 1 << 20 else f"{size_bytes >> 20} MiB"


def auto_over_native(size_entry):
    """From one size of a sweep JSON (results.sizes[k]) run with native and auto: auto's mean e
    over native's, with the medians' quotient in parentheses, as text; and what auto ran."""
    algorithms = {a['name']: a for point in size_entry['points'] for a in point['algorithms']}
    native, auto = algorithms['native'], algorithms['auto']
    text = f"{auto['elapsed_ratio']:.2f} ({auto['median_elapsed_s'] / native['median_elapsed_s']:.2f})"
    return text, auto.get('ran', {})
