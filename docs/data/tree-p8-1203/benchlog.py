"""e / native's per (size, pattern, delay, algorithm) from a papshim-bench sweep log."""
import re

def ratios(log):
    values, size, pattern, delay = {}, None, None, None
    for line in open(log):
        s = re.match(r'(\S+ [KM]iB) vector', line)
        if s:
            size = s.group(1)
            continue
        m = re.match(r'(one-late|staircase|uniform)?\s+(0|\d+tau)?\s*(native|binomial|pipelined_binomial|auto)'
                     r'\s+[\d.]+ [mu]?s\s+([\d.]+)', line)
        if m:
            pattern = m.group(1) or pattern
            delay = m.group(2) or delay
            values[(size, pattern, delay, m.group(3))] = m.group(4)
    return values
