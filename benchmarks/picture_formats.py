"""Would a smaller picture reach the eye sooner? Bytes and in-page decode time of a slider's frame
in other encodings (a script, not a test).

A slider's frame (lessons 01 and 10) is encoded as the views encode it (RGBA, unfiltered, zlib
level 1: `packlab.views.plots.png_bytes`), as RGB at zlib levels 1 and 6, as a 256-colour
palette (Pillow's quantiser: not the same pixels) and as lossless WebP. In headless Chromium each
is set as an image's ``src`` from a blob URL, as ipywidgets' Image does, and timed until it is
decoded, then until the next frame is painted; the encodings alternate, round after round, so the
machine's load falls on all alike. Prints bytes, medians and the load average.

Run: .venv/bin/python benchmarks/picture_formats.py [--rounds N] [--times N]
"""

from __future__ import annotations

import argparse
import base64
import io
import os
import statistics
import struct
import sys
import zlib
from pathlib import Path

import numpy as np
from PIL import Image

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from browser import chromium  # noqa: E402

from packlab.packing.examples import chat_parts  # noqa: E402
from packlab.views.conversation import turn_view  # noqa: E402
from packlab.views.plots import png_bytes  # noqa: E402
from packlab.views.widgets import budget_slider  # noqa: E402

SHOW = """async ([data, kind, times]) => {
    const bytes = Uint8Array.from(atob(data), c => c.charCodeAt(0));
    const img = document.getElementById('picture');
    const out = [];
    for (let k = 0; k < times; k++) {
        const url = URL.createObjectURL(new Blob([bytes], {type: kind}));
        const start = performance.now();
        img.src = url;
        await img.decode();
        const decoded = performance.now();
        await new Promise(done => requestAnimationFrame(() => setTimeout(done, 0)));
        out.push([decoded - start, performance.now() - start]);
        URL.revokeObjectURL(url);
        await new Promise(done => setTimeout(done, 30));
    }
    return out;
}"""


def rgb_png(rgba: np.ndarray, level: int) -> bytes:
    """The pixels as an RGB PNG (colour type 2), rows unfiltered, zlib at ``level``."""
    height, width, _ = rgba.shape
    rows = np.empty((height, 1 + 3 * width), dtype=np.uint8)
    rows[:, 0] = 0
    rows[:, 1:] = rgba[..., :3].reshape(height, -1)
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"".join([b"\x89PNG\r\n\x1a\n", _chunk(b"IHDR", header),
                     _chunk(b"IDAT", zlib.compress(rows, level)), _chunk(b"IEND", b"")])


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def pillow(rgba: np.ndarray, quantise: bool, kind: str, **options) -> bytes:
    image = Image.fromarray(np.ascontiguousarray(rgba[..., :3]))
    if quantise:
        image = image.quantize(256, method=Image.Quantize.FASTOCTREE)
    out = io.BytesIO()
    image.save(out, kind, **options)
    return out.getvalue()


def encodings(plot) -> dict[str, tuple[bytes, str]]:
    """The frame ``plot`` shows now, in each encoding, with its MIME type."""
    plot.png()
    rgba = np.asarray(plot.figure.canvas.buffer_rgba()).copy()
    return {
        "RGBA, level 1 (the views')": (png_bytes(rgba), "image/png"),
        "RGB, level 1": (rgb_png(rgba, 1), "image/png"),
        "RGB, level 6": (rgb_png(rgba, 6), "image/png"),
        "256-colour palette": (pillow(rgba, True, "PNG", compress_level=1), "image/png"),
        "lossless WebP": (pillow(rgba, False, "WEBP", lossless=True, method=0), "image/webp"),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--times", type=int, default=15, help="pictures per encoding and round")
    args = parser.parse_args()
    load_before = os.getloadavg()
    views = {"lesson 01": budget_slider(chat_parts()).plot, "lesson 10": turn_view(budget=400).plot}
    print(f"{'frame, encoding':<40} {'bytes':>7} {'decoded':>8} {'painted':>8}")
    with chromium() as context:
        page = context.new_page()
        page.set_content("<img id='picture'>")
        for name, plot in views.items():
            pictures = encodings(plot)
            times: dict[str, list] = {label: [] for label in pictures}
            for round_ in range(args.rounds):
                order = list(pictures) if round_ % 2 == 0 else list(reversed(pictures))
                for label in order:
                    data, kind = pictures[label]
                    times[label] += page.evaluate(
                        SHOW, [base64.b64encode(data).decode(), kind, args.times])
            for label, (data, _) in pictures.items():
                print(f"{name + ', ' + label:<40} {len(data):>7} "
                      f"{statistics.median(t[0] for t in times[label]):>6.1f}ms "
                      f"{statistics.median(t[1] for t in times[label]):>6.1f}ms")
    print("(medians; load average before " + ", ".join(f"{x:.2f}" for x in load_before)
          + ", after " + ", ".join(f"{x:.2f}" for x in os.getloadavg()) + ")")


if __name__ == "__main__":
    main()
