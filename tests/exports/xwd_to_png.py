#!/usr/bin/env python3
"""Turns an X window dump (xwd -root of a TrueColor screen, 24 or 32 bits a pixel) into a PNG, and prints how many pixels
of each distinct saturated colour it holds (a chart's areas; greys, white and black are the
window's frame and text), most frequent first: "RRGGBB COUNT" a line.

Usage: xwd_to_png.py DUMP.xwd OUT.png [MIN_PIXELS]
Only the standard library: the dump's header fields are big-endian 32-bit words (X11's XWDFile.h),
the PNG is written with zlib."""
import struct
import sys
import zlib


def read_xwd(path):
    data = open(path, 'rb').read()
    if len(data) < 100:
        sys.exit(f'{path}: too short for an X window dump')
    fields = struct.unpack('>25I', data[:100])
    header_size, version, pixmap_format, depth, width, height = fields[:6]
    byte_order, bits_per_pixel, bytes_per_line = fields[7], fields[11], fields[12]
    ncolors = fields[19]
    if version != 7 or pixmap_format != 2 or bits_per_pixel not in (24, 32):
        sys.exit(f'{path}: not a 24- or 32-bit ZPixmap dump (version {version}, format'
                 f' {pixmap_format}, {bits_per_pixel} bits a pixel)')
    step = bits_per_pixel // 8
    start = header_size + ncolors * 12
    if len(data) < start + bytes_per_line * height:
        sys.exit(f'{path}: {len(data)} bytes, the pixels need {start + bytes_per_line * height}')
    # LSBFirst (byte_order 0): blue, green, red in memory; MSBFirst: the other way round.
    order = (2, 1, 0) if byte_order == 0 else (step - 3, step - 2, step - 1)
    rows = []
    for y in range(height):
        line = data[start + y * bytes_per_line:start + y * bytes_per_line + width * step]
        rgb = bytearray(width * 3)
        for channel, offset in enumerate(order):
            rgb[channel::3] = line[offset::step]
        rows.append(bytes(rgb))
    return width, height, rows


def write_png(path, width, height, rows):
    def chunk(kind, payload):
        return (struct.pack('>I', len(payload)) + kind + payload +
                struct.pack('>I', zlib.crc32(kind + payload) & 0xffffffff))
    raw = b''.join(b'\0' + row for row in rows)
    with open(path, 'wb') as out:
        out.write(b'\x89PNG\r\n\x1a\n')
        out.write(chunk(b'IHDR', struct.pack('>IIBBBBB', width, height, 8, 2, 0, 0, 0)))
        out.write(chunk(b'IDAT', zlib.compress(raw, 6)))
        out.write(chunk(b'IEND', b''))


def main():
    if len(sys.argv) < 3:
        sys.exit('usage: xwd_to_png.py DUMP.xwd OUT.png [MIN_PIXELS]')
    minimum = int(sys.argv[3]) if len(sys.argv) > 3 else 1
    width, height, rows = read_xwd(sys.argv[1])
    write_png(sys.argv[2], width, height, rows)
    counts = {}
    for row in rows:
        for i in range(0, len(row), 3):
            r, g, b = row[i], row[i + 1], row[i + 2]
            if max(r, g, b) - min(r, g, b) >= 60:  # saturated: not grey, white or black
                key = (r << 16) | (g << 8) | b
                counts[key] = counts.get(key, 0) + 1
    for colour, count in sorted(counts.items(), key=lambda item: -item[1]):
        if count >= minimum:
            print(f'{colour:06x} {count}')


main()
