# Reads papshim-bench --json sweep files for the scripts of the data directories: per point,
# each algorithm's mean excess over the unavoidable wait and its mean ē, in seconds.
import json, statistics as st


def sweep_points(path):
    """Yields (point, runs, excess, elapsed) for every size and point of one JSON file."""
    for size in json.load(open(path))["results"]["sizes"]:
        for point in size["points"]:
            runs = {a["name"]: a for a in point["algorithms"]}
            excess = {k: st.mean(e - u for e, u in zip(a["elapsed_s"], a["unavoidable_wait_s"])) for k, a in runs.items()}
            elapsed = {k: st.mean(a["elapsed_s"]) for k, a in runs.items()}
            yield point, runs, excess, elapsed
