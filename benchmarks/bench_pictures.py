"""How long one 1280×720 picture comparison takes, for each way of doing it (issue 40's dependency choice).

Run: .venv/bin/python benchmarks/bench_pictures.py [--rounds N] [--site DIR ...]

The two pictures are made here: a page-like picture (white, grey text lines, a blue
button) and the same page with the button moved 12 px and one text line's edge
anti-aliased a shade lighter. Each candidate decodes both PNGs and counts the pixels
over pixelmatch's YIQ threshold 0.2; the median processor time of ``--rounds`` is given, in ms.

- ``numpy`` (what screenshot_matches uses: executor/audits/picture_compare.py), with its fast
  paths: equal bytes, and equal pixels after decoding;
- ``pillow-only``: the same distance with Pillow's ImageMath on float bands, no numpy;
- ``pixelmatch`` (pure Python port), ``pixelmatch-fast`` (numba), ``pybind11-pixelmatch`` (C++):
  each in a process of its own, found on ``--site`` folders (``pip install --target DIR``), as the
  first two install a module of the same name. A candidate that is not installed is skipped.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Callable

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

W, H = 1280, 720


def pictures() -> tuple[bytes, bytes]:
    import numpy as np
    from PIL import Image

    def page(button_x: int, aa: bool) -> bytes:
        px = np.full((H, W, 3), 255, dtype=np.uint8)
        for row in range(40, 600, 24):  # text lines
            px[row:row + 10, 60:60 + (row * 7) % 900 + 200] = 60
        if aa:
            px[40:50, 60] = 140  # one edge drawn a shade lighter: anti-aliasing
        px[640:680, button_x:button_x + 160] = (37, 99, 235)  # the button
        out = io.BytesIO()
        Image.fromarray(px, "RGB").save(out, format="PNG")
        return out.getvalue()

    return page(1000, False), page(1012, True)


def timed(fn: Callable[[], object], rounds: int) -> tuple[float, object]:
    """The median processor time of ``rounds`` calls, in ms, and the last result.

    Processor time, not wall time: on a machine shared with other work (this one runs at a load of
    20 and more on 2 cores) the wall time measures the queue; the processor time, the work.
    """
    times, result = [], None
    for _ in range(rounds):
        start = time.process_time()
        result = fn()
        times.append((time.process_time() - start) * 1000)
    return statistics.median(times), result


def pillow_only(a: bytes, b: bytes, threshold: float = 0.2) -> int:
    """pixelmatch's distance with Pillow alone: ImageMath on float bands, then a histogram count."""
    from PIL import Image, ImageMath

    bands_a = [band.convert("F") for band in Image.open(io.BytesIO(a)).convert("RGB").split()]
    bands_b = [band.convert("F") for band in Image.open(io.BytesIO(b)).convert("RGB").split()]
    env = {"r1": bands_a[0], "g1": bands_a[1], "b1": bands_a[2], "r2": bands_b[0], "g2": bands_b[1], "b2": bands_b[2]}
    limit = 35215 * threshold * threshold
    delta = ImageMath.unsafe_eval(
        "(((r1-r2)*0.29889531+(g1-g2)*0.58662247+(b1-b2)*0.11448223)**2)*0.5053"
        "+(((r1-r2)*0.59597799-(g1-g2)*0.27417610-(b1-b2)*0.32180189)**2)*0.299"
        "+(((r1-r2)*0.21147017-(g1-g2)*0.52261711+(b1-b2)*0.31114694)**2)*0.1957", **env)
    over = ImageMath.unsafe_eval("convert(d > limit, 'L')", d=delta, limit=limit)
    return over.histogram()[1]


def candidate(name: str, a: bytes, b: bytes, rounds: int) -> dict[str, object]:
    """One library candidate, in this process (called through ``--candidate``)."""
    import numpy as np
    from PIL import Image

    def rgba(data: bytes) -> "np.ndarray":
        return np.ascontiguousarray(np.asarray(Image.open(io.BytesIO(data)).convert("RGBA")))

    if name == "pixelmatch":
        from pixelmatch.contrib.PIL import pixelmatch as pm

        def run() -> int:
            return pm(Image.open(io.BytesIO(a)).convert("RGBA"), Image.open(io.BytesIO(b)).convert("RGBA"), threshold=0.2)
        rounds = 1  # seconds per run
    elif name == "pixelmatch-fast":
        import pixelmatch as pf

        def run() -> int:
            return pf.pixelmatch(Image.open(io.BytesIO(a)), Image.open(io.BytesIO(b)), threshold=0.2)
        first_ms, _ = timed(run, 1)  # numba compiles here
        ms, count = timed(run, rounds)
        return {"ms": round(ms, 1), "first_call_ms": round(first_ms, 1), "diff_pixels": count}
    elif name == "pybind11-pixelmatch":
        import pybind11_pixelmatch as pb

        def run() -> int:
            options = pb.Options()
            options.threshold = 0.2
            return pb.pixelmatch(rgba(a), rgba(b), options=options)
    else:
        raise SystemExit(f"unknown candidate {name}")
    ms, count = timed(run, rounds)
    return {"ms": round(ms, 1), "diff_pixels": count}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--site", action="append", default=[], help="a pip --target folder with candidates")
    parser.add_argument("--candidate", help=argparse.SUPPRESS)
    args = parser.parse_args()
    a, b = pictures()
    if args.candidate:
        print(json.dumps(candidate(args.candidate, a, b, args.rounds)))
        return
    from pytest_cometlocal.executor.audits.picture_compare import compare

    rows: dict[str, object] = {}
    ms, result = timed(lambda: compare(a, b, 0.2).diff_pixels, args.rounds)
    rows["numpy, the count only (a difference within the allowance)"] = {"ms": round(ms, 1), "diff_pixels": result}
    ms, result = timed(lambda: compare(a, b, 0.2).diff_png, args.rounds)
    rows["numpy, with the diff picture (a failure)"] = {"ms": round(ms, 1)}
    ms, result = timed(lambda: compare(a, bytes(a), 0.2), args.rounds)
    rows["numpy, equal bytes (fast path)"] = {"ms": round(ms, 2), "diff_pixels": result.diff_pixels}
    from PIL import Image
    other = io.BytesIO()
    Image.open(io.BytesIO(a)).save(other, format="PNG", compress_level=1)  # same pixels, other bytes
    ms, result = timed(lambda: compare(a, other.getvalue(), 0.2), args.rounds)
    rows["numpy, equal pixels (fast path)"] = {"ms": round(ms, 1), "diff_pixels": result.diff_pixels}
    ms, count = timed(lambda: pillow_only(a, b), args.rounds)
    rows["pillow-only (ImageMath)"] = {"ms": round(ms, 1), "diff_pixels": count}
    for site in args.site or [None]:
        for name in ("pixelmatch", "pixelmatch-fast", "pybind11-pixelmatch"):
            env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [site, os.environ.get("PYTHONPATH")])))
            proc = subprocess.run([sys.executable, __file__, "--candidate", name, "--rounds", str(args.rounds)],
                                  capture_output=True, text=True, env=env, timeout=600)
            if proc.returncode != 0 and os.environ.get("BENCH_VERBOSE"):
                print(name, site, proc.stderr[-400:], file=sys.stderr)
            if proc.returncode == 0 and name not in rows:
                rows[name] = json.loads(proc.stdout)
    for name, row in rows.items():
        print(f"{name:58} {json.dumps(row)}")


if __name__ == "__main__":
    main()
