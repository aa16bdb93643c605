"""Prepare an image for OCR: open it within the pixel limit, grayscale, rescale, deskew.

Downscale policy: an image over `max_pixels` (setting `TABLELENS_OCR_MAX_PIXELS`) is refused
before its pixels are decoded. One within the limit is worked on at a scale that makes its
text about `TEXT_PX` pixels high (small text is scaled up, up to 4x; large text down), and the
working copy never exceeds `WORK_PIXELS` pixels: a larger image is scaled down to that size.
Every box is mapped back to the original image's pixels (`Transform.to_original`).
"""

from __future__ import annotations

import io
import math
import re
import warnings
from dataclasses import dataclass
from typing import BinaryIO

import cv2
import numpy as np
from PIL import Image, ImageOps, UnidentifiedImageError

from ingest.errors import ImageTooLarge, NotAnImage

WORK_PIXELS = 16_000_000
"""Pixels of the working copy OCR runs on (after scaling)."""
TEXT_PX = 30
"""Height, in working pixels, of a glyph (a capital letter or digit) the scale aims for:
tesseract reads glyphs of 20-40 px best."""
MAX_UPSCALE = 4.0
MAX_SKEW_DEG = 5.0
"""Rotations searched for deskewing, either way (small angles only)."""


@dataclass(frozen=True)
class Transform:
    """How the working image was made from the original: scaled by `scale`, then rotated by
    `angle` degrees about the working image's centre."""

    scale: float
    angle: float
    work_size: tuple[int, int]
    """(width, height) of the working image."""
    original_size: tuple[int, int]
    turn: int = 0
    """Degrees (0, 90, 180, 270) the original was turned clockwise to stand upright, before
    scaling."""

    def to_original(self, box: tuple[float, float, float, float]) -> tuple[int, int, int, int]:
        """Map a working-image box to the original image's pixels (clipped to it)."""
        x0, y0, x1, y1 = box
        corners = [(x0, y0), (x1, y0), (x0, y1), (x1, y1)]
        if self.angle:
            cx, cy = self.work_size[0] / 2, self.work_size[1] / 2
            a = math.radians(self.angle)
            cos, sin = math.cos(a), math.sin(a)
            # cv2's positive angle turns the image counter-clockwise; undo it.
            corners = [(cx + (x - cx) * cos - (y - cy) * sin, cy + (x - cx) * sin + (y - cy) * cos)
                       for x, y in corners]
        corners = [self._unturn(x / self.scale, y / self.scale) for x, y in corners]
        xs = [x for x, _ in corners]
        ys = [y for _, y in corners]
        w, h = self.original_size
        return (max(0, int(min(xs))), max(0, int(min(ys))),
                min(w, int(math.ceil(max(xs)))), min(h, int(math.ceil(max(ys)))))


    def _unturn(self, x: float, y: float) -> tuple[float, float]:
        """A point of the upright image in the original's pixels."""
        w, h = self.original_size
        if self.turn == 90:
            return y, h - x
        if self.turn == 180:
            return w - x, h - y
        if self.turn == 270:
            return w - y, x
        return x, y


def quarter_turn(clean: np.ndarray) -> int:
    """Degrees to turn an image clockwise so its text stands upright, from tesseract's
    orientation detection (psm 0) on the working image with its rules erased (0 when it
    stands upright already, or has too little text to tell). About 0.2-0.4 s, so the reader
    asks only when a first read went badly."""
    import pytesseract

    try:
        osd = pytesseract.image_to_osd(Image.fromarray(clean),
                                       config="--psm 0 -c min_characters_to_try=5")
    except pytesseract.TesseractError:
        return 0
    found = re.search(r"Rotate: (\d+)", osd)
    turn = int(found.group(1)) if found else 0
    return turn if turn in (90, 180, 270) else 0


def open_image(stream: BinaryIO, name: str, max_pixels: int) -> Image.Image:
    """Open an image's header and check its size, then decode it (grayscale, EXIF-rotated)."""
    data = stream.read()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            image = Image.open(io.BytesIO(data))
    except Image.DecompressionBombError as exc:
        found = re.search(r"\((\d+) pixels\)", str(exc))
        raise too_large(name, int(found.group(1)) if found else None, max_pixels) from None
    except (UnidentifiedImageError, OSError, ValueError):
        raise NotAnImage(name, "the file is named as an image, but its bytes are not an image "
                         "Tablelens can read (PNG, JPEG, WebP, TIFF or BMP).",
                         "Check that it is the right file, or export the picture again as "
                         "PNG.") from None
    width, height = image.size
    if width * height > max_pixels:
        raise too_large(name, width * height, max_pixels, image.size)
    try:
        image.load()
        image = ImageOps.exif_transpose(image)
        if image.mode in ("RGBA", "LA", "P", "PA"):
            image = image.convert("RGBA")
            background = Image.new("RGBA", image.size, (255, 255, 255, 255))
            image = Image.alpha_composite(background, image)
        return image.convert("L")
    except (OSError, ValueError, SyntaxError):
        raise NotAnImage(name, "the image is damaged: its pixels could not be decoded.",
                         "Export the picture again (as PNG) and upload it.") from None


def too_large(name: str, pixels: int | None, max_pixels: int,
              size: tuple[int, int] | None = None) -> ImageTooLarge:
    shown = f"{size[0]:,} x {size[1]:,} pixels" if size else (
        f"{pixels:,} pixels" if pixels else "more pixels than allowed")
    return ImageTooLarge(name, f"the image is {shown}; the limit is {max_pixels:,} pixels.",
                         "Crop it to the table, or scale it down, or raise "
                         "TABLELENS_OCR_MAX_PIXELS.")


def binarise(gray: np.ndarray) -> np.ndarray:
    """Ink as 1, paper as 0 (Otsu's threshold; dark text on light paper)."""
    _, ink = cv2.threshold(gray, 0, 1, cv2.THRESH_BINARY_INV + cv2.THRESH_OTSU)
    if ink.mean() > 0.5:  # light text on a dark page: the paper is the minority class
        ink = 1 - ink
    return ink


def faint_ink(gray: np.ndarray) -> np.ndarray:
    """Ink as 1 down to half as dark as Otsu's threshold asks (halfway from it to the paper):
    light grey lines (a browser's table borders) that `binarise` leaves out."""
    otsu, ink = cv2.threshold(gray, 0, 1, cv2.THRESH_BINARY_INV + cv2.THRESH_OTSU)
    if ink.mean() > 0.5:  # light text on a dark page: ink is lighter than the paper
        paper = float(np.percentile(gray, 10))
        return (gray > (otsu + paper) / 2).astype(np.uint8)
    paper = float(np.percentile(gray, 90))
    return (gray < (otsu + paper) / 2).astype(np.uint8)


def glyph_height(ink: np.ndarray) -> float | None:
    """The median height of glyph-sized ink blobs (None when there are none)."""
    n, _, stats, _ = cv2.connectedComponentsWithStats(ink, connectivity=8)
    if n <= 1:
        return None
    h = stats[1:, cv2.CC_STAT_HEIGHT]
    w = stats[1:, cv2.CC_STAT_WIDTH]
    area = stats[1:, cv2.CC_STAT_AREA]
    # glyphs: not rules (thin and long), not specks; digits and capitals are taller than wide
    keep = (h >= 4) & (h <= 300) & (w <= 3 * h) & (area >= 6) & (h >= 0.8 * w)
    if keep.sum() < 3:
        keep = (h >= 3) & (h <= 300) & (w <= 5 * h)
    if not keep.any():
        return None
    return float(np.median(h[keep]))


def skew_angle(ink: np.ndarray) -> float:
    """The small rotation (degrees, cv2's sense) that makes text lines horizontal."""
    h, w = ink.shape
    f = min(1.0, 1000 / max(w, h))
    small = cv2.resize(ink * 255, (max(1, int(w * f)), max(1, int(h * f))),
                       interpolation=cv2.INTER_AREA) if f < 1 else ink * 255

    def sharpness(angle: float) -> float:
        m = cv2.getRotationMatrix2D((small.shape[1] / 2, small.shape[0] / 2), angle, 1.0)
        turned = cv2.warpAffine(small, m, (small.shape[1], small.shape[0]),
                                flags=cv2.INTER_NEAREST, borderValue=0)
        rows = turned.sum(axis=1, dtype=np.float64)
        return float(np.square(np.diff(rows)).sum())

    coarse = np.arange(-MAX_SKEW_DEG, MAX_SKEW_DEG + 1e-9, 0.5)
    best = max(coarse, key=sharpness)
    fine = np.arange(best - 0.5, best + 0.5 + 1e-9, 0.1)
    best = max(fine, key=sharpness)
    return float(best) if abs(best) >= 0.15 else 0.0


def prepare(image: Image.Image, turn: int = 0) -> tuple[np.ndarray, Transform]:
    """Return the working grayscale image and how it maps to the original (turned `turn`
    degrees clockwise first)."""
    original_size = image.size
    if turn:
        image = image.rotate(-turn, expand=True)
    gray = np.asarray(image, dtype=np.uint8)
    h, w = gray.shape
    glyph = glyph_height(binarise(gray))
    scale = min(MAX_UPSCALE, TEXT_PX / glyph) if glyph else 1.0
    if scale < 1.0 and glyph and glyph < TEXT_PX * 1.5:
        scale = 1.0
    scale = min(scale, math.sqrt(WORK_PIXELS / (w * h)))
    if abs(scale - 1.0) > 0.05:
        interp = cv2.INTER_CUBIC if scale > 1 else cv2.INTER_AREA
        gray = cv2.resize(gray, (max(1, round(w * scale)), max(1, round(h * scale))),
                          interpolation=interp)
    else:
        scale = 1.0
    angle = skew_angle(binarise(gray))
    if angle:
        hh, ww = gray.shape
        m = cv2.getRotationMatrix2D((ww / 2, hh / 2), angle, 1.0)
        gray = cv2.warpAffine(gray, m, (ww, hh), flags=cv2.INTER_CUBIC, borderValue=255)
    return gray, Transform(scale, angle, (gray.shape[1], gray.shape[0]), original_size, turn)
