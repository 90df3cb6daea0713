#!/usr/bin/env python3
"""Finishes the manual page generate-manual writes.

swift-argument-parser's generate-manual (1.8) writes an mdoc page that
 - leaves out the default `--help` shows beside each option (and the
   tool's own pattern missed every option with a short name, `-o, --output`);
 - keeps the discussions' blank lines, each an "mdoc warning: Empty input
   line" under `man -l` or `groff -mandoc -ww`;
 - gives no `.Os`, so groff heads and foots it "BSD" ("BSD General Commands
   Manual");
 - says `.Ex -std` under EXIT STATUS (">0 if an error occurs"): the real
   statuses are listed there instead, from the "EXIT STATUS:" paragraph of
   the tool's own description ("0 on success; 64 for ...; ...").
The defaults come from the binary itself (`--experimental-dump-help`,
ArgumentParser's description of every command), so they are the models'
own, never a second list.

usage: man-page.py PAGE DUMP.json VERSION   (rewrites PAGE in place)
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
            value = pending[1]
            # A value that is not a word ("." for the working folder) is quoted,
            # or "Default: .." would read as a typo.
            out.append(f"Default: {value}." if re.match(r"[\w#]", value) else f"Default:\n.Ql \\&{value} .")
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
            option = re.match(r"\.It Fl (?:[A-Za-z0-9] , )?-([A-Za-z0-9-]+)", line)
            if option:
                value = defaults.get(command, {}).get(option.group(1))
                if value is not None:
                    pending, described = (depth, value), []
        elif pending:
            described.append(line)
        out.append(line)
    flush()
    return out


def exit_statuses(dump):
    """The EXIT STATUS section's body, from the root command's discussion:
    its paragraph "EXIT STATUS: N what; N what; ... Sentences." as a list
    of the statuses, then the sentences after it; None without one."""
    discussion = dump["command"].get("discussion", "")
    found = re.search(r"EXIT STATUS:(.*?)(?:\n\s*\n|$)", discussion, re.S)
    if not found:
        return None
    text = " ".join(found.group(1).split())
    listed, _, rest = text.partition(". ")
    body = [".Bl -tag -width Ds"]
    for item in listed.split("; "):
        status, _, meaning = item.strip().partition(" ")
        body += [f".It {status}", meaning[0].upper() + meaning[1:] + "."]
    body.append(".El")
    if rest:
        body += [".Pp", rest]
    return body


def with_exit_statuses(lines, body):
    """`.Ex -std` replaced by `body`."""
    if body is None:
        return lines
    out = []
    for line in lines:
        out += body if line.strip() == ".Ex -std" else [line]
    return out


def paragraphs(lines):
    """A blank line of a discussion as mdoc's paragraph break."""
    return [".Pp" if line.strip() == "" else line for line in lines[:-1]] + lines[-1:]


def headed(lines, version):
    """The page headed and footed with the program, not "BSD": groff's mdoc
    puts its operating-system string (BSD) before the volume of any numbered
    section, so it is emptied before `.Dt` (mandoc has no such string)."""
    out = []
    for line in lines:
        if line.startswith(".Dt "):
            out.append(".ds doc-volume-operating-system")
        out.append(f".Os collage {version}" if line == ".Os" else line)
    return out


def main():
    page, dump, version = sys.argv[1], sys.argv[2], sys.argv[3]
    with open(dump) as f:
        described = json.load(f)
    defaults = defaults_by_command(described)
    with open(page) as f:
        lines = f.read().split("\n")
    lines = with_exit_statuses(lines, exit_statuses(described))
    with open(page, "w") as f:
        f.write("\n".join(headed(paragraphs(add_defaults(lines, defaults)), version)))


if __name__ == "__main__":
    main()
