"""Two pictures compared pixel by pixel, as Playwright's ``toHaveScreenshot`` compares them.

The colour distance is pixelmatch's (the library Playwright uses): each pixel's
colour in YIQ, the squared difference weighted ``0.5053·ΔY² + 0.299·ΔI² + 0.1957·ΔQ²``,
compared with ``35215·threshold²`` (35215 is the largest such distance, black against
white), so ``threshold`` 0 counts every changed pixel and 1 none. A transparent pixel is
blended with white first, as pixelmatch blends it. The whole picture is one numpy
expression: a 1280×720 comparison takes milliseconds (benchmarks/bench_pictures.py),
where a pixel loop in Python takes seconds. pixelmatch's anti-aliasing detection is
not done: a pixel that only anti-aliasing moved is counted when its distance is over the
threshold; ``max_diff_pixels`` allows for that.

Identical PNG bytes, and then identical pixels, are known without any arithmetic.
Pure: no browser, no file; PNG in and out through Pillow.
"""

from __future__ import annotations

import io
from dataclasses import dataclass, field

import numpy as np
from PIL import Image

# pixelmatch's largest YIQ distance (black against white): threshold² scales it.
MAX_YIQ_DELTA = 35215.0
_Y = np.array([0.29889531, 0.58662247, 0.11448223], dtype=np.float32)
_I = np.array([0.59597799, -0.27417610, -0.32180189], dtype=np.float32)
_Q = np.array([0.21147017, -0.52261711, 0.31114694], dtype=np.float32)
DIFF_COLOUR = (255, 0, 0)  # pixelmatch's: a differing pixel in the diff picture
FADE = 0.1  # pixelmatch's alpha: the actual picture, faded to grey, under the differences
MASK_COLOUR = (255, 0, 255)  # Playwright's mask colour (#FF00FF): a masked area in both pictures


@dataclass(frozen=True)
class Comparison:
    """How far two pictures are apart: pixels over the threshold, their share, and the diff picture."""

    diff_pixels: int
    total_pixels: int
    size: tuple[int, int]  # the actual picture's (width, height)
    expected_size: tuple[int, int]
    # (the actual pixels, the differing ones): the diff picture is made only when asked for (a failure)
    _diff: tuple[np.ndarray, np.ndarray] | None = field(default=None, repr=False, compare=False)

    @property
    def diff_png(self) -> bytes | None:
        """The diff picture; None when nothing differs, or the sizes do."""
        return diff_picture(*self._diff) if self._diff is not None else None

    @property
    def diff_ratio(self) -> float:
        return self.diff_pixels / self.total_pixels if self.total_pixels else 0.0

    @property
    def same_size(self) -> bool:
        return self.size == self.expected_size

    def within(self, max_diff_pixels: int | None, max_diff_ratio: float | None) -> bool:
        """Whether the difference is allowed: a size change never is; without an allowance, no pixel may differ."""
        if not self.same_size:
            return False
        if max_diff_ratio is not None:
            return self.diff_ratio <= max_diff_ratio
        return self.diff_pixels <= (max_diff_pixels or 0)

    def details(self) -> dict[str, object]:
        """What a failure's details and observed name: the count, the ratio (6 places), the sizes when they differ."""
        shown: dict[str, object] = {"diff_pixels": self.diff_pixels, "diff_ratio": round(self.diff_ratio, 6)}
        if not self.same_size:
            shown["size"] = {"expected": list(self.expected_size), "actual": list(self.size)}
        return shown


def decode(png: bytes) -> np.ndarray:
    """An H×W×4 uint8 array, opaque: transparency blended with white (pixelmatch's blend).

    Four bytes a pixel let a pixel be compared as one 32-bit word (``_words``).
    """
    with Image.open(io.BytesIO(png)) as image:
        rgba = np.asarray(image.convert("RGBA"), dtype=np.uint8)
    alpha = rgba[..., 3]
    if alpha.min() == 255:
        return rgba
    a = alpha[..., None].astype(np.float32) / 255.0
    out = rgba.copy()
    out[..., :3] = np.rint(255.0 + (rgba[..., :3].astype(np.float32) - 255.0) * a).astype(np.uint8)
    out[..., 3] = 255
    return out


def encode(pixels: np.ndarray) -> bytes:
    """A PNG of an H×W×3 or H×W×4 array; compression level 1: a failure's picture, written once, read by people."""
    out = io.BytesIO()
    Image.fromarray(np.ascontiguousarray(pixels[..., :3]), "RGB").save(out, format="PNG", compress_level=1)
    return out.getvalue()


def _words(pixels: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(pixels).view(np.uint32)[..., 0]


def differing(expected: np.ndarray, actual: np.ndarray, threshold: float) -> np.ndarray:
    """The H×W boolean mask of the pixels whose YIQ distance is over ``threshold`` (same sizes).

    Only the pixels whose bytes changed are transformed: on a page that changed a little, a few.
    """
    changed = _words(expected) != _words(actual)
    if not changed.any():
        return changed
    d = expected[changed][:, :3].astype(np.float32) - actual[changed][:, :3].astype(np.float32)
    # Y, I and Q are linear: the difference of the two colours, transformed once
    delta = 0.5053 * (d @ _Y) ** 2 + 0.299 * (d @ _I) ** 2 + 0.1957 * (d @ _Q) ** 2
    out = np.zeros(changed.shape, dtype=bool)
    out[changed] = delta > MAX_YIQ_DELTA * threshold * threshold
    return out


def diff_picture(actual: np.ndarray, mask: np.ndarray) -> bytes:
    """The actual picture faded to grey, the differing pixels red (pixelmatch's output)."""
    grey = actual[..., :3].astype(np.float32) @ _Y
    faded = (255.0 + (grey - 255.0) * FADE).clip(0, 255).astype(np.uint8)
    out = np.repeat(faded[..., None], 3, axis=2)
    out[mask] = DIFF_COLOUR
    return encode(out)


def paint(pixels: np.ndarray, boxes: list[tuple[int, int, int, int]]) -> np.ndarray:
    """``pixels`` with each box (x, y, width, height, in pixels) painted MASK_COLOUR, clipped to the picture."""
    if not boxes:
        return pixels
    out = pixels.copy()
    h, w = out.shape[:2]
    for x, y, bw, bh in boxes:
        x0, y0, x1, y1 = max(0, x), max(0, y), min(w, x + bw), min(h, y + bh)
        if x0 < x1 and y0 < y1:
            out[y0:y1, x0:x1, :3] = MASK_COLOUR
    return out


def compare(expected_png: bytes, actual_png: bytes, threshold: float,
            boxes: list[tuple[int, int, int, int]] = ()) -> Comparison:  # type: ignore[assignment]
    """Compare two PNGs; ``boxes``: areas painted over in both before (the masks, as the actual was taken).

    Equal bytes are equal pictures: no decoding. Equal pixels are found before any distance.
    """
    if expected_png == actual_png and not boxes:
        with Image.open(io.BytesIO(actual_png)) as image:
            size = image.size
        return Comparison(0, size[0] * size[1], size, size)
    expected = paint(decode(expected_png), list(boxes))
    actual = paint(decode(actual_png), list(boxes))
    size = (actual.shape[1], actual.shape[0])
    expected_size = (expected.shape[1], expected.shape[0])
    if size != expected_size:
        total = max(size[0] * size[1], expected_size[0] * expected_size[1])
        return Comparison(total, total, size, expected_size)
    if np.array_equal(_words(expected), _words(actual)):
        return Comparison(0, size[0] * size[1], size, expected_size)
    mask = differing(expected, actual, threshold)
    count = int(mask.sum())
    return Comparison(count, size[0] * size[1], size, expected_size, (actual, mask) if count else None)
