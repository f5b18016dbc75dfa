#!/usr/bin/env python3
"""Where the bytes of a compact rtrace trace go (docs/format.md, versions 1 to 6): bytes and
counts per record tag, and for CALL records per call kind and per field. Reads a plain or
zstd-compressed trace (the `zstd` command decompresses).

    bench/compact-mix.py TRACE.rtrace
    bench/compact-mix.py --columns TRACE.rtrace

--columns also gathers each field's bytes (of every call kind) into a stream of its own and
prints, per field, the order-0 entropy of its values (bits per call) and the size of that
stream after `zstd -1`: which fields hold the information and which only cost bytes
(bench/RESULTS.md, "Where a compact trace's bytes go").
"""
import math
import subprocess
import sys
import tempfile
from collections import Counter, defaultdict

TAGS = {1: "TRACE", 2: "PROCESS", 3: "MODULE", 4: "MAPPING", 5: "CONTEXT", 6: "RESOURCE",
        7: "FUNCTION", 8: "STACK", 9: "CALL", 10: "HEAP", 11: "OUTPUT", 12: "ATTACHMENT",
        13: "RESET", 14: "END", 15: "NOTE", 16: "THREAD", 0x87: "THREAD switch (bare)"}
KINDS = {0: "other", 1: "release", 2: "allocation", 3: "scope entry", 4: "scope exit",
         5: "transient", 6: "transient (-A)"}
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


def bare_switch_end(data, pos):
    """Where version 4's bare THREAD switch at `pos` ends (0xFF: the slot follows)."""
    if data[pos] == 0xFF:
        return varint(data, pos + 1)[1]
    return pos + 1


def bare_call_end(data, pos):
    """Where a bare CALL (versions 3 and 4) at `pos` ends."""
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
    fields = [("flags", 1, payload[:1], flags)]
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
        value, end = varint(payload, pos)
        fields.append((name, end - pos, payload[pos:end], value))
        pos = end
    if pos < len(payload):
        fields.append(("arguments", len(payload) - pos, payload[pos:], None))
    return flags & 7, [(name, size) for name, size, *_ in fields], fields


def record_is_whole(data, pos, major):
    """Whether the record at `pos` ends within `data` (a trace may be cut short)."""
    try:
        tag = data[pos]
        if major >= 4 and tag & 0x87 == 0x87:
            end = bare_switch_end(data, pos)
        elif major >= 3 and tag & 0x80:
            end = bare_call_end(data, pos)
        else:
            length, end = varint(data, pos + 1)
            end += length
    except IndexError:
        return False
    return end <= len(data)


def entropy_bits(values):
    total = sum(values.values())
    return sum(-n / total * math.log2(n / total) for n in values.values())


def zstd_size(data):
    with tempfile.TemporaryDirectory() as scratch:
        path = scratch + "/column"
        with open(path, "wb") as column:
            column.write(data)
        return len(subprocess.run(["zstd", "-1", "-c", path], capture_output=True,
                                  check=True).stdout)


def print_columns(columns, values, total):
    """Per field: its stream's bytes, zstd -1 of the stream alone, entropy of its values."""
    print(f"\n{'field stream':24} {'bytes':>12} {'zstd -1':>12} {'values':>10} {'bits/call':>9}")
    for field, data in sorted(columns.items(), key=lambda item: -len(item[1])):
        if len(data) < total // 10000:
            continue
        counted = values[field]
        bits = f"{entropy_bits(counted):6.2f} b" if counted else ""
        print(f"{field:24} {len(data):12} {zstd_size(bytes(data)):12} {len(counted):10} {bits:>9}")


def main():
    arguments = [a for a in sys.argv[1:] if a != "--columns"]
    want_columns = len(arguments) < len(sys.argv) - 1
    if len(arguments) != 1:
        sys.exit("usage: compact-mix.py [--columns] TRACE.rtrace")
    raw = open(arguments[0], "rb").read()
    if raw[:4] == b"\x28\xb5\x2f\xfd":
        raw = subprocess.run(["zstd", "-dc"], input=raw, capture_output=True).stdout
    if raw[:8] != MAGIC:
        sys.exit("not a compact trace")
    major = raw[8]
    pos = 10
    tag_bytes, tag_count = Counter(), Counter()
    kind_bytes, kind_count = Counter(), Counter()
    field_bytes = defaultdict(Counter)
    columns = defaultdict(bytearray)
    values = defaultdict(Counter)
    while pos < len(raw):
        start = pos
        tag = raw[pos]
        if not record_is_whole(raw, pos, major):
            print(f"(cut inside the record at byte offset {pos}: the rest is left out)")
            break
        if major >= 4 and tag & 0x87 == 0x87:
            pos = bare_switch_end(raw, pos)
            tag_bytes[TAGS[0x87]] += pos - start
            tag_count[TAGS[0x87]] += 1
            if want_columns:
                columns["thread switch"] += raw[start:pos]
            continue
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
            kind, fields, raw_fields = call_fields(payload, major)
            if want_columns:
                for field, _, data, value in raw_fields:
                    columns[field] += data
                    if value is not None:
                        values[field][(kind, value)] += 1
            kind_bytes[kind] += pos - start
            kind_count[kind] += 1
            field_bytes[kind]["framing (tag, length)"] += pos - start - length
            for field, size in fields:
                field_bytes[kind][field] += size
    total = len(raw)
    print(f"{arguments[0]}: version {major}.{raw[9]}, {total} bytes (uncompressed)")
    print(f"{'record':12} {'count':>10} {'bytes':>12} {'share':>7} {'bytes/record':>13}")
    for name, size in tag_bytes.most_common():
        print(f"{name:12} {tag_count[name]:10} {size:12} {100 * size / total:6.1f}% "
              f"{size / tag_count[name]:13.2f}")
    for kind, size in kind_bytes.most_common():
        print(f"\nCALL {KINDS.get(kind, kind)}: {kind_count[kind]} calls, "
              f"{size / kind_count[kind]:.2f} bytes each")
        for field, fsize in field_bytes[kind].most_common():
            print(f"  {field:24} {fsize / kind_count[kind]:6.2f} bytes/call")
    if want_columns:
        print_columns(columns, values, total)


if __name__ == "__main__":
    main()
