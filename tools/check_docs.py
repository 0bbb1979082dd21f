#!/usr/bin/env python3
"""Checks the user docs (README.md and docs/*.md; not the lab notebook in docs/notes/)
against the program they describe:

1. every fenced block marked ```sh runnable runs from the repository root with
   bash -euo pipefail and succeeds (each within --timeout seconds);
2. every option on a `geoalign COMMAND ...` command in the pages' code exists in that
   command's --help, and an option named alone (`--device`) exists in some command's
   --help, in an option of the repository's tools/ and scripts/, or in
   OTHER_TOOLS_OPTIONS (pip's, curl's...). Options of other programs' command lines
   (python3 tools/..., dask-worker) are theirs and not checked.

Usage: tools/check_docs.py [--binary build/release/geoalign] [--skip-runs] [FILE.md ...]
Exit status 0 when everything holds; 1 with one line per problem (FILE:LINE: what) when not.
"""

import argparse
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# Options of the other commands the pages show (pip, python, curl, cmake, ctest, dask's
# read_csv...): not geoalign's, so not looked up in its --help.
OTHER_TOOLS_OPTIONS = {
    "--no-build-isolation", "--break-system-packages", "--system-site-packages", "--output-on-failure",
    "--gtest_filter", "--data-binary", "--json", "--header", "--fail", "--silent", "--show-error",
    "--user", "--upgrade", "--no-deps", "--build", "--target", "--config", "--parallel", "--preset",
    "--nproc_per_node", "--gpus", "--cpus", "--rm", "--network", "--help", "--version",
}

FENCE = re.compile(r"^(\s*)```+\s*([\w+-]*)\s*(.*)$")
OPTION = re.compile(r"(?<![\w-])(--[a-z][a-z0-9-]*[a-z0-9])")
SEGMENT_SPLIT = re.compile(r"\|\||&&|[|;]")
GEOALIGN = {"geoalign", "build/release/geoalign", "./build/release/geoalign"}
PREFIXES = {"time", "nice", "sudo", "exec", "env", "$", "#"}


def tool_options(root):
    """Options the repository's own scripts take (tools/, scripts/): a page may name them."""
    found = set()
    for path in list((root / "tools").rglob("*.py")) + list((root / "tools").rglob("*.sh")) + \
            list((root / "scripts").glob("*.sh")):
        found.update(re.findall(r"[\"'](--[a-z][a-z0-9-]*)[\"'=]", path.read_text(encoding="utf-8", errors="replace")))
        found.update(re.findall(r"^\s*(--[a-z][a-z0-9-]*)\)", path.read_text(encoding="utf-8", errors="replace"),
                                re.MULTILINE))
    return found


def command_segments(code):
    """(program, its words) for each shell command of a piece of code."""
    for segment in SEGMENT_SPLIT.split(code):
        words = segment.split()
        while words and (words[0] in PREFIXES or re.match(r"^[A-Z_][A-Z0-9_]*=", words[0])):
            words = words[1:]
        if words:
            yield words[0], words[1:]


def user_pages(root):
    return [root / "README.md"] + sorted((root / "docs").glob("*.md"))


def fenced_blocks(text):
    """(first line number, language, info words, lines) of each fenced block."""
    blocks, current = [], None
    for number, line in enumerate(text.splitlines(), 1):
        fence = FENCE.match(line)
        if current is None and fence:
            current = (number + 1, fence.group(2), fence.group(3).split(), [])
        elif current is not None and line.strip().startswith("```"):
            blocks.append(current)
            current = None
        elif current is not None:
            current[3].append(line)
    return blocks


def help_options(binary, command):
    words = command.split()
    run = subprocess.run([binary, *words, "--help"], capture_output=True, text=True, timeout=60)
    return set(OPTION.findall(run.stdout + run.stderr))


def commands_of(binary):
    run = subprocess.run([binary, "--help"], capture_output=True, text=True, timeout=60)
    listed = re.findall(r"^  ([a-z][a-z-]*)\s", run.stdout + run.stderr, re.MULTILINE)
    return [c for c in listed if c != "index"] + ["index build", "index add"]


def code_on_lines(text):
    """(line number, line, the code on it): a fenced block's whole line, else its `inline code`."""
    inside = False
    for number, line in enumerate(text.splitlines(), 1):
        if line.strip().startswith("```"):
            inside = not inside
            continue
        yield number, line, [line] if inside else re.findall(r"`([^`]+)`", line)


def check_options(pages, binary):
    problems = []
    known = {c: help_options(binary, c) for c in commands_of(binary)}
    allowed = set().union(*known.values()) | tool_options(ROOT) | OTHER_TOOLS_OPTIONS
    for page in pages:
        name = page.relative_to(ROOT) if page.is_relative_to(ROOT) else page
        for number, _line, code in code_on_lines(page.read_text(encoding="utf-8")):
            for piece in code:
                for program, words in command_segments(piece):
                    if program.startswith("--"):  # an option named alone: `--device`
                        options = OPTION.findall(" ".join([program] + words))
                        problems += [f"{name}:{number}: {o} is no option of geoalign or of its tools"
                                     for o in options if o not in allowed]
                    if program not in GEOALIGN or not words:
                        continue  # another program's options are its own
                    command = " ".join(words[:2]) if words[0] == "index" and len(words) > 1 else words[0]
                    if command.startswith("-") or command == "index" or command.endswith(":"):  # a message
                        continue
                    if command not in known:
                        problems.append(f"{name}:{number}: geoalign {command}: no such command")
                        continue
                    for option in OPTION.findall(" ".join(words)):
                        if option not in known[command]:
                            problems.append(f"{name}:{number}: geoalign {command} has no option {option}")
    return problems


def run_blocks(pages, timeout):
    problems, ran = [], 0
    for page in pages:
        for first, language, info, lines in fenced_blocks(page.read_text(encoding="utf-8")):
            if language != "sh" or "runnable" not in info:
                continue
            ran += 1
            script = "\n".join(lines)
            where = f"{page.relative_to(ROOT) if page.is_relative_to(ROOT) else page}:{first}"
            try:
                run = subprocess.run(["bash", "-euo", "pipefail", "-c", script], cwd=ROOT, capture_output=True,
                                     text=True, timeout=timeout)
            except subprocess.TimeoutExpired:
                problems.append(f"{where}: the block ran past {timeout} s")
                continue
            if run.returncode != 0:
                tail = (run.stderr or run.stdout).strip().splitlines()[-3:]
                problems.append(f"{where}: the block exited {run.returncode}: " + " | ".join(tail))
    return problems, ran


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pages", nargs="*", type=Path, help="pages to check (default: README.md and docs/*.md)")
    parser.add_argument("--binary", default=str(ROOT / "build" / "release" / "geoalign"))
    parser.add_argument("--skip-runs", action="store_true", help="check options only")
    parser.add_argument("--timeout", type=int, default=120, help="seconds each runnable block may take")
    args = parser.parse_args()
    pages = [p.resolve() for p in args.pages] or user_pages(ROOT)
    if not Path(args.binary).is_file():
        sys.exit(f"check_docs: {args.binary} is not built (scripts/build.sh release)")
    problems = check_options(pages, args.binary)
    ran = 0
    if not args.skip_runs:
        run_problems, ran = run_blocks(pages, args.timeout)
        problems += run_problems
    for problem in problems:
        print(problem)
    print(f"check_docs: {len(pages)} pages, {ran} runnable blocks run, {len(problems)} problems", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
