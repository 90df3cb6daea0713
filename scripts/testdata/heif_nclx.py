#!/usr/bin/env python3
"""HEICs whose colr box is nclx, from heif-enc's single-image files (heif-enc
1.15 writes no colr box for a PNG, and no grids), for issue #32's tests.

  heif_nclx.py single IN.heic OUT.heic [P T M]
                                         the nclx on the one image item
                                         (P T M: its primaries, transfer
                                         and matrix, else 1 13 5)
  heif_nclx.py grid LEFT.heic RIGHT.heic OUT.heic WIDTH HEIGHT
                                         a 1x2 grid, as phones write, the
                                         nclx on its tiles, an sRGB ICC
                                         profile (colr prof) on the grid

The nclx: BT.709 primaries, sRGB transfer, BT.601 matrix (5), limited range
(a phone's HDR HEIF says 5 1 5: BT.601 primaries and BT.709 transfer).
"""
import struct
import sys

NCLX = struct.pack('>4sHHHB', b'nclx', 1, 13, 5, 0)


def nclx(primaries, transfer, matrix):
    return struct.pack('>4sHHHB', b'nclx', primaries, transfer, matrix, 0)


def box(kind, payload):
    return struct.pack('>I4s', 8 + len(payload), kind) + payload


def full_box(kind, version, flags, payload):
    return box(kind, bytes([version]) + flags.to_bytes(3, 'big') + payload)


def children(data, start, end):
    """(kind, offset, size) of each box from start to end."""
    at = start
    while at < end:
        size, kind = struct.unpack_from('>I4s', data, at)
        yield kind, at, size
        at += size


def parse(data):
    top = {k: (a, s) for k, a, s in children(data, 0, len(data))}
    meta_at, meta_size = top[b'meta']
    inner = {k: (a, s) for k, a, s in children(data, meta_at + 12, meta_at + meta_size)}
    iprp_at, iprp_size = inner[b'iprp']
    sub = {k: (a, s) for k, a, s in children(data, iprp_at + 8, iprp_at + iprp_size)}
    return meta_at, meta_size, inner, iprp_at, iprp_size, sub


def the_one_item(data):
    """hvcC, ispe and coded bytes of heif-enc's one image (iloc version 0 or 1, one extent)."""
    _, _, inner, _, _, sub = parse(data)
    ipco_at, ipco_size = sub[b'ipco']
    props = {k: data[a:a + s] for k, a, s in children(data, ipco_at + 8, ipco_at + ipco_size)}
    iloc_at, _ = inner[b'iloc']
    version, p = data[iloc_at + 8], iloc_at + 12
    offset_size, length_size, base_size = data[p] >> 4, data[p] & 15, data[p + 1] >> 4
    p += 4 + 2 + (2 if version == 1 else 0) + 2
    base = int.from_bytes(data[p:p + base_size], 'big')
    p += base_size + 2
    offset = int.from_bytes(data[p:p + offset_size], 'big')
    length = int.from_bytes(data[p + offset_size:p + offset_size + length_size], 'big')
    return props[b'hvcC'], props[b'ispe'], data[base + offset:base + offset + length]


def write(path, items, grid_item=None):
    """items: (hvcC, ispe, bytes, extra property indices); grid_item: (width, height, property indices)."""
    properties, entries, count = [], [], len(items) + (1 if grid_item else 0)
    colr_nclx = box(b'colr', NCLX)
    properties = [colr_nclx]  # 1
    if grid_item:  # the grid's ICC profile, 2 (Debian's libgs-common has it)
        icc = open('/usr/share/color/icc/ghostscript/srgb.icc', 'rb').read()
        properties.append(box(b'colr', b'prof' + icc))
    for n, (hvcc, ispe, _, extra) in enumerate(items):
        properties += [hvcc, ispe]
        entries.append((n + 1, [0x80 | len(properties) - 1, len(properties)] + extra))
    if grid_item:
        width, height, extra = grid_item
        properties.append(full_box(b'ispe', 0, 0, struct.pack('>II', width, height)))
        entries.append((count, [len(properties)] + extra))
    ipma = full_box(b'ipma', 0, 0, struct.pack('>I', len(entries)) + b''.join(
        struct.pack('>HB', item, len(assoc)) + bytes(assoc) for item, assoc in entries))
    iprp = box(b'iprp', box(b'ipco', b''.join(properties)) + ipma)
    hdlr = full_box(b'hdlr', 0, 0, b'\0' * 4 + b'pict' + b'\0' * 13)
    pitm = full_box(b'pitm', 0, 0, struct.pack('>H', count))

    def infe(item, kind, hidden):
        return full_box(b'infe', 2, 1 if hidden else 0, struct.pack('>HH4s', item, 0, kind) + b'\0')
    infes = [infe(n + 1, b'hvc1', bool(grid_item)) for n in range(len(items))]
    if grid_item:
        infes.append(infe(count, b'grid', False))
    iinf = full_box(b'iinf', 0, 0, struct.pack('>H', count) + b''.join(infes))
    iref = full_box(b'iref', 0, 0, box(b'dimg', struct.pack('>HH', count, len(items)) + b''.join(
        struct.pack('>H', n + 1) for n in range(len(items))))) if grid_item else b''
    payloads = [coded for _, _, coded, _ in items]
    if grid_item:
        payloads.append(struct.pack('>BBBBHH', 0, 0, 0, len(items) - 1, grid_item[0], grid_item[1]))
    ftyp = box(b'ftyp', b'heic' + b'\0\0\0\0' + b'mif1heic')

    def meta(mdat_at):
        at, rows = mdat_at + 8, []
        for n, payload in enumerate(payloads):
            rows.append(struct.pack('>HHHII', n + 1, 0, 1, at, len(payload)))
            at += len(payload)
        iloc = full_box(b'iloc', 0, 0, bytes([0x44, 0x00]) + struct.pack('>H', len(payloads)) + b''.join(rows))
        return full_box(b'meta', 0, 0, hdlr + pitm + iloc + iinf + iref + iprp)
    first = meta(0)
    out = ftyp + meta(len(ftyp) + len(first)) + box(b'mdat', b''.join(payloads))
    open(path, 'wb').write(out)


if sys.argv[1] == 'single':
    if len(sys.argv) == 7:
        NCLX = nclx(*(int(code) for code in sys.argv[4:7]))
    hvcc, ispe, coded = the_one_item(open(sys.argv[2], 'rb').read())
    write(sys.argv[3], [(hvcc, ispe, coded, [0x81])])
else:
    left = the_one_item(open(sys.argv[2], 'rb').read())
    right = the_one_item(open(sys.argv[3], 'rb').read())
    write(sys.argv[4], [left + ([0x81],), right + ([0x81],)], (int(sys.argv[5]), int(sys.argv[6]), [0x82]))
