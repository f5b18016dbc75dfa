#!/usr/bin/env python3
"""Inputs for the resolver benchmark: distinct return addresses sampled from real ELF files.

    make_inputs.py OUT_DIR COUNT FILE [FILE...]

Return addresses are the addresses of the instructions that follow a call (objdump -d), as a
backtrace holds them. COUNT addresses are drawn (fixed seed) evenly from the files; a file with
fewer call sites than its share adds the addresses of other instructions (each then stands for
the instruction before it, which every tool is asked about). Writes:
  trace.txt            a text-protocol trace: one executable mapping per file (shared objects at
                       made-up load addresses), 10-frame call records holding every address once
  <n>.addr             per file: the call-instruction addresses (return address - 1), one per
                       line, for addr2line, eu-addr2line and llvm-symbolizer
  files.txt            the files in order
  frames.tsv           run-time address, file index, file address (return address - 1)
"""
import random
import re
import subprocess
import sys

PAGE = 4096


def candidate_addresses(path):
    """Return addresses first, then every other instruction that follows one in a function."""
    listing = subprocess.run(["objdump", "-d", "--no-show-raw-insn", "-w", path],
                             check=True, capture_output=True, text=True).stdout
    returns, others = set(), set()
    previous = None
    for line in listing.splitlines():
        match = re.match(r"\s+([0-9a-f]+):\s+(\S+)", line)
        if not match:
            previous = None
            continue
        address = int(match.group(1), 16)
        if previous is not None:
            (returns if previous.startswith("call") else others).add(address)
        previous = match.group(2)
    return sorted(returns), sorted(others)


def code_segment(path):
    """(is_shared_object, page-aligned vaddr, end vaddr) of the first executable PT_LOAD."""
    header = subprocess.run(["readelf", "-hlW", path], check=True, capture_output=True,
                            text=True).stdout
    shared = re.search(r"Type:\s+DYN", header) is not None
    for line in header.splitlines():
        fields = line.split()
        if fields and fields[0] == "LOAD" and "E" in "".join(fields[6:-1]):
            vaddr, memsz = int(fields[2], 16), int(fields[5], 16)
            return shared, vaddr & ~(PAGE - 1), (vaddr + memsz + PAGE - 1) & ~(PAGE - 1)
    raise SystemExit(f"{path}: no executable segment")


def main():
    out, count, files = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
    rng = random.Random(1)
    candidates = [candidate_addresses(path) for path in files]
    per_file = [returns + others for returns, others in candidates]
    # Even shares; files with fewer addresses give what they have and the rest go to others.
    share = {i: 0 for i in range(len(files))}
    left = count
    while left > 0:
        open_files = [i for i in share if share[i] < len(per_file[i])]
        if not open_files:
            raise SystemExit(f"only {sum(share.values())} return addresses available")
        step = max(1, left // len(open_files))
        for i in open_files:
            take = min(step, len(per_file[i]) - share[i], left)
            share[i] += take
            left -= take
    frames = []
    maps = []
    for i, path in enumerate(files):
        shared, start, end = code_segment(path)
        base = 0x7F0000000000 + i * 0x10000000 if shared else 0
        maps.append(f": {path} => 0x{base + start:x}-0x{base + end:x}")
        returns, others = candidates[i]
        chosen = rng.sample(returns, min(share[i], len(returns)))
        chosen += rng.sample(others, share[i] - len(chosen))
        with open(f"{out}/{i}.addr", "w") as addr_file:
            addr_file.write("".join(f"0x{a - 1:x}\n" for a in chosen))
        frames += [(base + a, i, a - 1) for a in chosen]
    rng.shuffle(frames)
    with open(f"{out}/files.txt", "w") as f:
        f.write("".join(path + "\n" for path in files))
    with open(f"{out}/frames.tsv", "w") as f:
        f.write("".join(f"0x{r:x}\t{i}\t0x{a:x}\n" for r, i, a in frames))
    with open(f"{out}/trace.txt", "w") as f:
        f.write("version=2.0, arch=x86_64, timestamp=2026.1.1 00:00:00, process=bench, pid=1, "
                "backtrace depth=10, origin=rtrace bench, \n")
        f.write("<1> : memory (memory allocation in bytes)\n")
        f.write("".join(m + "\n" for m in maps))
        for n in range(0, len(frames), 10):
            f.write(f"{n // 10 + 1}. malloc(16) = 0x{0x10000 + n:x}\n")
            f.write("".join(f"\t0x{r:x}\n" for r, _, _ in frames[n:n + 10]))
            f.write("\n")
    print(" ".join(f"{files[i]}={share[i]} ({min(share[i], len(candidates[i][0]))} return addresses)"
                   for i in range(len(files))))


main()
