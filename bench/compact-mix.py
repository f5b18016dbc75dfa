#!/usr/bin/env python3
"""Where the bytes of a compact rtrace trace go (docs/format.md, versions 1 to 3): bytes and
counts per record tag, and for CALL records per call kind and per field. Reads a plain or
zstd-compressed trace (the `zstd` command decompresses).

    bench/compact-mix.py TRACE.rtrace
"""
import subprocess
import sys
from collections import Counter, defaultdict

TAGS = {1: "TRACE", 2: "PROCESS", 3: "MODULE", 4: "MAPPING", 5: "CONTEXT", 6: "RESOURCE",
        7: "FUNCTION", 8: "STACK", 9: "CALL", 10: "HEAP", 11: "OUTPUT", 12: "ATTACHMENT",
        13: "RESET", 14: "END", 15: "NOTE"}
KINDS = {0: "other", 1: "release", 2: "allocation", 3: "scope entry", 4: "scope exit"}
MAGIC = b"\x89RTC\r\n\x1a\n"


def varint(data, pos):
    value = shift = 0
    while True:
        b = data[pos]
        pos += 1
        value |= (b & 0x7F) << shift
        shift += 7
        if b < 0x80:
            return value, pos


def bare_call_end(data, pos):
    """Where version 3's bare CALL at `pos` ends."""
    flags = data[pos]
    fields = 4 + (2 if flags & 0x40 else 0) + (1 if flags & 0x20 else 0)
    pos += 1
    for _ in range(fields):
        _, pos = varint(data, pos)
    if flags & 0x08:
        count, pos = varint(data, pos)
        for _ in range(2 * count):
            length, pos = varint(data, pos)
            pos += length
    return pos


def call_fields(payload, major):
    """(field name, byte count) of one CALL payload."""
    flags = payload[0]
    fields = [("flags", 1)]
    pos = 1
    if major == 1:
        names = ["function", "resource type", "context", "timestamp", "resource id", "size",
                 "stack"]
    else:
        names = ["function"]
        if flags & 0x40:
            names += ["resource type", "context"]
        if flags & 0x20:
            names += ["timestamp"]
        names += ["resource ref" if flags & 0x10 else "resource id", "size", "stack"]
    for name in names:
        _, end = varint(payload, pos)
        fields.append((name, end - pos))
        pos = end
    if pos < len(payload):
        fields.append(("arguments", len(payload) - pos))
    return flags & 7, fields


def main():
    raw = open(sys.argv[1], "rb").read()
    if raw[:4] == b"\x28\xb5\x2f\xfd":
        raw = subprocess.run(["zstd", "-dc"], input=raw, capture_output=True).stdout
    if raw[:8] != MAGIC:
        sys.exit("not a compact trace")
    major = raw[8]
    pos = 10
    tag_bytes, tag_count = Counter(), Counter()
    kind_bytes, kind_count = Counter(), Counter()
    field_bytes = defaultdict(Counter)
    while pos < len(raw):
        start = pos
        tag = raw[pos]
        if major >= 3 and tag & 0x80:
            # A bare CALL: the flags byte (less 0x80) and the fields, no length.
            flags = tag & 0x7F
            end = bare_call_end(raw, pos)
            payload = bytes([flags]) + raw[pos + 1:end]
            tag, length, pos = 9, len(payload), end
        else:
            length, pos = varint(raw, pos + 1)
            payload = raw[pos:pos + length]
            pos += length
        name = TAGS.get(tag, hex(tag))
        tag_bytes[name] += pos - start
        tag_count[name] += 1
        if tag == 9:
            kind, fields = call_fields(payload, major)
            kind_bytes[kind] += pos - start
            kind_count[kind] += 1
            field_bytes[kind]["framing (tag, length)"] += pos - start - length
            for field, size in fields:
                field_bytes[kind][field] += size
    total = len(raw)
    print(f"{sys.argv[1]}: version {major}.{raw[9]}, {total} bytes (uncompressed)")
    print(f"{'record':12} {'count':>10} {'bytes':>12} {'share':>7} {'bytes/record':>13}")
    for name, size in tag_bytes.most_common():
        print(f"{name:12} {tag_count[name]:10} {size:12} {100 * size / total:6.1f}% "
              f"{size / tag_count[name]:13.2f}")
    for kind, size in kind_bytes.most_common():
        print(f"\nCALL {KINDS.get(kind, kind)}: {kind_count[kind]} calls, "
              f"{size / kind_count[kind]:.2f} bytes each")
        for field, fsize in field_bytes[kind].most_common():
            print(f"  {field:24} {fsize / kind_count[kind]:6.2f} bytes/call")


if __name__ == "__main__":
    main()
