#!/usr/bin/env python3
"""Makes the W6 benchmark workload: six 4032x3024 camera-like JPEGs.

Deterministic (fixed seeds, numpy's PCG64): the same numpy, Pillow and
libjpeg-turbo give the same bytes. Each photo is a synthetic scene with what
makes real photos expensive to decode and easy to get wrong when scaled:
smooth sky-like gradients, hard-edged objects, 1/f ("pink") texture at every
scale, fine detail, lens blur and sensor noise (luma and chroma). Saved at
quality 92 with 4:2:0 chroma and an EXIF block (orientation 1), like a phone.

usage: make_workload.py OUTPUT_DIR [COUNT]
"""
import os
import sys

import numpy as np
from PIL import Image, ImageDraw, ImageFilter

W, H = 4032, 3024


def pink(rng, h, w, beta):
    """Zero-mean, unit-variance noise with a 1/f^beta power spectrum."""
    spectrum = rng.standard_normal((h, w // 2 + 1)) + 1j * rng.standard_normal((h, w // 2 + 1))
    fy = np.fft.fftfreq(h)[:, None]
    fx = np.fft.rfftfreq(w)[None, :]
    radius = np.sqrt(fx * fx + fy * fy)
    radius[0, 0] = 1.0
    spectrum *= radius ** (-beta / 2.0)
    spectrum[0, 0] = 0.0
    field = np.fft.irfft2(spectrum, s=(h, w))
    field -= field.mean()
    field /= field.std()
    return field.astype(np.float32)


# Texture and noise levels. Chosen so that the photos weigh what 12 MP phone
# JPEGs at quality 92 typically do (2-3 MB) and that the other tools' times
# and the decode floor land near the figures in issue 5 (docs/performance.md).
TEXTURE = 0.05   # amplitude of the multiplicative 1/f texture
FINE = 1.5       # amplitude (levels) of the fine additive texture
OPTICS = 0.6     # Gaussian blur (pixels) of the lens, before sensor noise


def gaussian_blur(image, sigma):
    """Separable Gaussian blur of an H x W x 3 float image, edges clamped."""
    radius = int(np.ceil(3 * sigma))
    taps = np.exp(-np.arange(-radius, radius + 1) ** 2 / (2 * sigma * sigma)).astype(np.float32)
    taps /= taps.sum()
    for axis in (0, 1):
        padding = [(0, 0)] * 3
        padding[axis] = (radius, radius)
        padded = np.pad(image, padding, mode="edge")
        out = np.zeros_like(image)
        for i, weight in enumerate(taps):
            out += weight * (padded[i:i + H] if axis == 0 else padded[:, i:i + W])
        image = out
    return image


def scene(seed):
    rng = np.random.default_rng(seed)
    # Sky-to-ground gradient in two random hues.
    top = rng.uniform(60, 220, 3)
    bottom = rng.uniform(30, 180, 3)
    t = np.linspace(0.0, 1.0, H, dtype=np.float32)[:, None, None]
    base = (top[None, None, :] * (1 - t) + bottom[None, None, :] * t).astype(np.float32)
    base = np.broadcast_to(base, (H, W, 3)).copy()

    # Hard-edged objects: polygons and ellipses of random colours.
    shapes = Image.new("RGB", (W, H), (0, 0, 0))
    mask = Image.new("L", (W, H), 0)
    draw, mask_draw = ImageDraw.Draw(shapes), ImageDraw.Draw(mask)
    for _ in range(int(rng.integers(25, 45))):
        colour = tuple(int(c) for c in rng.integers(0, 256, 3))
        cx, cy = rng.uniform(0, W), rng.uniform(H * 0.25, H)
        size = rng.uniform(80, 900)
        if rng.random() < 0.5:
            points = [(float(cx + size * np.cos(a) * rng.uniform(0.4, 1.0)),
                       float(cy + size * np.sin(a) * rng.uniform(0.4, 1.0)))
                      for a in np.sort(rng.uniform(0, 2 * np.pi, int(rng.integers(3, 9))))]
            draw.polygon(points, fill=colour)
            mask_draw.polygon(points, fill=255)
        else:
            box = [float(cx - size), float(cy - size * 0.6), float(cx + size), float(cy + size * 0.6)]
            draw.ellipse(box, fill=colour)
            mask_draw.ellipse(box, fill=255)
    # Lens and demosaicing softness: edges a pixel or so wide, not aliased.
    shapes = shapes.filter(ImageFilter.GaussianBlur(0.8))
    mask = mask.filter(ImageFilter.GaussianBlur(0.8))
    alpha = np.asarray(mask, dtype=np.float32)[:, :, None] / 255.0
    image = base * (1 - alpha) + np.asarray(shapes, dtype=np.float32) * alpha
    del base, shapes, mask, alpha

    # Texture at every scale (foliage, fabric, stone): luminance 1/f noise,
    # faint at the top (a smooth sky) and strong at the bottom (the ground),
    # plus gentler chroma variation.
    ramp = (0.25 + 0.75 * np.linspace(0.0, 1.0, H, dtype=np.float32))[:, None]
    texture = pink(rng, H, W, 1.6)
    image *= (1.0 + TEXTURE * ramp * texture)[:, :, None]
    del texture
    fine = pink(rng, H, W, 0.8)
    image += (FINE * ramp * fine)[:, :, None]
    del fine
    for c in range(3):
        low = Image.fromarray(pink(rng, H // 4, W // 4, 2.0), "F").resize((W, H), Image.BICUBIC)
        image[:, :, c] += 10.0 * np.asarray(low)

    # The lens: no detail right up to the pixel pitch.
    image = gaussian_blur(image, OPTICS)

    # Sensor noise after a light denoise: mostly luma, a little chroma.
    image += rng.normal(0.0, 1.0, (H, W, 1)).astype(np.float32)
    image += rng.normal(0.0, 0.5, (H, W, 3)).astype(np.float32)
    return Image.fromarray(np.clip(image + 0.5, 0, 255).astype(np.uint8), "RGB")


def exif_block(index):
    exif = Image.Exif()
    exif[0x010F] = "BenchCam"              # Make
    exif[0x0110] = "W6 synthetic"          # Model
    exif[0x0112] = 1                       # Orientation: as stored
    exif[0x0132] = "2024:06:0%d 12:00:00" % index  # DateTime
    return exif.tobytes()


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    out = sys.argv[1]
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 6
    os.makedirs(out, exist_ok=True)
    for index in range(1, count + 1):
        path = os.path.join(out, "photo-%d.jpg" % index)
        if os.path.exists(path):
            continue
        temporary = path + ".tmp"
        scene(1000 + index).save(temporary, "JPEG", quality=92, subsampling=2,
                                 optimize=False, exif=exif_block(index))
        os.replace(temporary, path)
        print("made %s (%d bytes)" % (path, os.path.getsize(path)), file=sys.stderr)


if __name__ == "__main__":
    main()
