#!/usr/bin/env python3
"""Adds each option's default to the manual page generate-manual writes.

swift-argument-parser's generate-manual (1.8) prints an option's help but
not the default that `--help` shows beside it, so the page said less than
the program. The defaults come from the binary itself
(`--experimental-dump-help`, ArgumentParser's description of every command),
so they are the models' own, never a second list.

usage: man-defaults.py PAGE DUMP.json   (rewrites PAGE in place)
"""
import json
import re
import sys


def defaults_by_command(dump):
    """{command name or "": {long option name: default}} for every command."""
    found = {}

    def walk(command, name):
        found[name] = {}
        for argument in command.get("arguments", []):
            default = argument.get("defaultValue")
            longs = [n["name"] for n in argument.get("names", []) if n["kind"] == "long"]
            if default not in (None, "") and longs:
                found[name][longs[0]] = default
        for sub in command.get("subcommands", []):
            walk(sub, sub["commandName"])

    walk(dump["command"], "")
    return found


def add_defaults(lines, defaults):
    out = []
    command = ""      # the subcommand whose section this is ("" before the first)
    depth = 0         # .Bl nesting
    pending = None    # (depth of its list, default text) of the option being described
    described = []    # the option's description so far

    def flush():
        nonlocal pending, described
        if pending and not any("default" in line.lower() for line in described):
            out.append(f"Default: {pending[1]}.")
        pending, described = None, []

    for line in lines:
        if line.startswith(".Bl"):
            depth += 1
        elif line.startswith(".El"):
            if pending and depth == pending[0]:
                flush()
            depth -= 1
        elif line.startswith(".It"):
            if pending and depth == pending[0]:
                flush()
            subcommand = re.match(r"\.It Em (\S+)$", line)
            if subcommand and depth == 1:
                command = subcommand.group(1)
            option = re.match(r"\.It Fl -([A-Za-z0-9-]+)", line)
            if option:
                value = defaults.get(command, {}).get(option.group(1))
                if value is not None:
                    pending, described = (depth, value), []
        elif pending:
            described.append(line)
        out.append(line)
    flush()
    return out


def main():
    page, dump = sys.argv[1], sys.argv[2]
    with open(dump) as f:
        defaults = defaults_by_command(json.load(f))
    with open(page) as f:
        lines = f.read().split("\n")
    with open(page, "w") as f:
        f.write("\n".join(add_defaults(lines, defaults)))


if __name__ == "__main__":
    main()
