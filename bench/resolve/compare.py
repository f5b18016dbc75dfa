#!/usr/bin/env python3
"""Agreement of resolvers with llvm-symbolizer on the benchmark's addresses.

    compare.py WORK_DIR

Reads WORK_DIR/frames.tsv (from make_inputs.py), the llvm-symbolizer reference
(WORK_DIR/llvm.<n>.out), GNU addr2line and eu-addr2line outputs (addr2line.<n>.out,
eu-addr2line.<n>.out, two lines per address) and rtrace's resolved trace (rtrace.out).
For each address the innermost frame counts: its function, and its file:line where the
reference has one. A name equals the reference's also with "()" appended (C functions and names
DWARF gives without parameters print bare in llvm-symbolizer and with "()" in the sp-rtrace text
protocol); all names are compared without spaces
without compiler-copy suffixes (.cold, .isra.0: the same source function), and with GNU's
and LLVM's demangler dialects mapped onto one ({lambda(int)#1} / 'lambda'(int), lambda
numbering, decltype(nullptr) / std::nullptr_t, template spacing); names llvm-symbolizer leaves mangled
are demangled with c++filt. Files are compared by base name.
"""
import os
import re
import subprocess
import sys


def norm_function(name):
    """One spelling for what GNU's and LLVM's demanglers print differently."""
    name = re.sub(r" \[clone \.[^\]]*\]", "", name)        # copies: [clone .cold] / (.cold)
    name = re.sub(r"\(\.(cold|isra|part|constprop)[.0-9a-z]*\)$", "", name)
    name = re.sub(r"\.(cold|isra|part|constprop)[.0-9]*$", "", name)
    name = re.sub(r"'lambda\d*'", "'lambda'", name)            # 'lambda0' / {lambda()#2}
    name = name.replace("decltype(nullptr)", "std::nullptr_t")
    name = re.sub(r"\{lambda\(", "'lambda'(", name)          # {lambda(int)#1} / 'lambda'(int)
    name = re.sub(r"\)#\d+\}", ")", name)
    if "decltype" in name:                                    # decltype (::new ((void*)(0)) ...
        name = re.sub(r"[()]", "", name.replace("::new", "new"))
    return name.replace(" ", "")                              # operator<< <int> / operator<<<int>


def norm_location(text):
    text = re.sub(r" \(discriminator \d+\)$", "", text.strip())
    parts = text.rsplit(":", 2)
    if len(parts) == 3 and parts[2].isdigit() and parts[1].isdigit():
        text = parts[0] + ":" + parts[1]  # drop llvm's column
    file, _, line = text.rpartition(":")
    if file in ("", "??") or line in ("", "0", "?"):
        return None
    return os.path.basename(file) + ":" + line


def demangle_all(names):
    """c++filt for the mangled names llvm-symbolizer leaves as they are (transaction clones)."""
    mangled = sorted({n for n in names if n.startswith("_Z")})
    if not mangled:
        return {}
    out = subprocess.run(["c++filt"], input="\n".join(mangled) + "\n", capture_output=True,
                         text=True, check=True).stdout.split("\n")
    return dict(zip(mangled, out))


def read_llvm(path):
    """Innermost frame per address: blocks separated by empty lines."""
    answers = []
    with open(path) as f:
        blocks = f.read().split("\n\n")
    firsts = [block.strip("\n").split("\n")[0] for block in blocks]
    demangled = demangle_all(firsts)
    for block in blocks:
        lines = block.strip("\n").split("\n")
        if lines == [""]:
            continue
        function = demangled.get(lines[0], lines[0])
        answers.append((None if function == "??" else norm_function(function),
                        norm_location(lines[1]) if len(lines) > 1 else None))
    return answers


def read_pairs(path):
    with open(path) as f:
        lines = f.read().split("\n")
    answers = []
    for i in range(0, len(lines) - 1, 2):
        function = lines[i]
        answers.append((None if function == "??" else norm_function(function),
                        norm_location(lines[i + 1])))
    return answers


def read_rtrace(path):
    answers = {}
    with open(path) as f:
        for line in f:
            if not line.startswith("\t0x"):
                continue
            address, _, rest = line[1:].rstrip("\n").partition(" ")
            rest = re.sub(r"( \(inlined by .*)$", "", rest)
            if rest.startswith("at "):
                answers[int(address, 16)] = (None, norm_location(rest[3:]))
            elif rest.startswith("from ") or rest == "in ??" or not rest:
                answers[int(address, 16)] = (None, None)
            elif " at " in rest:
                function, _, location = rest.rpartition(" at ")
                answers[int(address, 16)] = (norm_function(function), norm_location(location))
            else:
                answers[int(address, 16)] = (norm_function(rest.rpartition(" from ")[0]), None)
    return answers


def same_function(function, ref_function):
    # The text protocol adds "()" to names that have no parameter list (C functions, names
    # DWARF gives without a linkage name): "main()" is llvm-symbolizer's "main".
    return function == ref_function or (
        function is not None and ref_function is not None and function == ref_function + "()")


def agree(answer, reference):
    function, location = answer
    ref_function, ref_location = reference
    if not same_function(function, ref_function):
        return False
    return ref_location is None or location == ref_location


def main():
    work = sys.argv[1]
    frames = []
    with open(f"{work}/frames.tsv") as f:
        for line in f:
            runtime, index, file_address = line.split()
            frames.append((int(runtime, 16), int(index), int(file_address, 16)))
    files = sorted({index for _, index, _ in frames})
    reference, others = {}, {"addr2line": {}, "eu-addr2line": {}}
    for index in files:
        order = [int(a, 16) for a in open(f"{work}/{index}.addr").read().split()]
        for address, answer in zip(order, read_llvm(f"{work}/llvm.{index}.out")):
            reference[(index, address)] = answer
        for tool, answers in others.items():
            path = f"{work}/{tool}.{index}.out"
            if os.path.exists(path):
                for address, answer in zip(order, read_pairs(path)):
                    answers[(index, address)] = answer
    rtrace = read_rtrace(f"{work}/rtrace.out")
    ours = {(index, file_address): rtrace.get(runtime, (None, None))
            for runtime, index, file_address in frames}
    results = {"rtrace resolve": ours, **others}
    for tool, answers in results.items():
        if not answers:
            continue
        same = sum(agree(answers.get(key, (None, None)), ref) for key, ref in reference.items())
        functions = sum(same_function(answers.get(key, (None, None))[0], ref[0])
                        for key, ref in reference.items())
        print(f"{tool:16s} agrees with llvm-symbolizer on {same}/{len(reference)} addresses "
              f"({100.0 * same / len(reference):.2f}%); function alone {100.0 * functions / len(reference):.2f}%")
    if len(sys.argv) > 2:
        shown = 0
        for key, ref in reference.items():
            if not agree(ours.get(key, (None, None)), ref) and shown < int(sys.argv[2]):
                print(f"  file {key[0]} 0x{key[1]:x}: rtrace {ours.get(key)} llvm {ref}")
                shown += 1


main()
