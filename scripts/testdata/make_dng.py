"""A DNG from an sRGB PNG, for the RAW loader's tests (issue #22): the PNG's
pixels linearised, sampled through an RGGB colour filter array, 12 bits in a
16-bit container, written by PiDNG (PyPI). The identity colour matrix and a
neutral white balance make the demosaiced result close to the PNG itself.

usage: python3 scripts/testdata/make_dng.py IN.png OUT.dng
"""
import os
import sys

import numpy as np
from PIL import Image
from pidng.core import RAW2DNG, DNGTags, Tag
from pidng.defs import CFAPattern, CalibrationIlluminant, DNGVersion, Orientation, PhotometricInterpretation, PreviewColorSpace

source, target = sys.argv[1], sys.argv[2]
rgb = np.asarray(Image.open(source).convert("RGB"), dtype=np.float64) / 255.0
# sRGB to linear light: a camera's sensor counts photons.
linear = np.where(rgb <= 0.04045, rgb / 12.92, ((rgb + 0.055) / 1.055) ** 2.4)
height, width, _ = linear.shape
bits = 12
white = (1 << bits) - 1
mosaic = np.zeros((height, width), dtype=np.uint16)
# RGGB: red at even rows and columns, blue at odd ones, green between.
mosaic[0::2, 0::2] = np.round(linear[0::2, 0::2, 0] * white)
mosaic[0::2, 1::2] = np.round(linear[0::2, 1::2, 1] * white)
mosaic[1::2, 0::2] = np.round(linear[1::2, 0::2, 1] * white)
mosaic[1::2, 1::2] = np.round(linear[1::2, 1::2, 2] * white)

tags = DNGTags()
tags.set(Tag.ImageWidth, width)
tags.set(Tag.ImageLength, height)
tags.set(Tag.TileWidth, width)
tags.set(Tag.TileLength, height)
tags.set(Tag.Orientation, Orientation.Horizontal)
tags.set(Tag.PhotometricInterpretation, PhotometricInterpretation.Color_Filter_Array)
tags.set(Tag.SamplesPerPixel, 1)
tags.set(Tag.BitsPerSample, bits)
tags.set(Tag.CFARepeatPatternDim, [2, 2])
tags.set(Tag.CFAPattern, CFAPattern.RGGB)
tags.set(Tag.BlackLevel, 0)
tags.set(Tag.WhiteLevel, white)
# XYZ to camera: sRGB's own (D65), so the camera's colours are sRGB's.
xyz_to_srgb = [[3.2406, -1.5372, -0.4986], [-0.9689, 1.8758, 0.0415], [0.0557, -0.2040, 1.0570]]
tags.set(Tag.ColorMatrix1, [[int(round(v * 10000)), 10000] for row in xyz_to_srgb for v in row])
tags.set(Tag.CalibrationIlluminant1, CalibrationIlluminant.D65)
tags.set(Tag.AsShotNeutral, [[1, 1], [1, 1], [1, 1]])
tags.set(Tag.BaselineExposure, [[0, 1]])
tags.set(Tag.Make, "collage")
tags.set(Tag.Model, "make_dng.py")
tags.set(Tag.DNGVersion, DNGVersion.V1_4)
tags.set(Tag.DNGBackwardVersion, DNGVersion.V1_2)
tags.set(Tag.PreviewColorSpace, PreviewColorSpace.sRGB)

converter = RAW2DNG()
folder, name = os.path.split(os.path.abspath(target))
converter.options(tags, path=folder, compress=False)
converter.convert(mosaic, filename=os.path.splitext(name)[0])
