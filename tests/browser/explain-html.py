#!/usr/bin/env python3
"""The page of `moac explain --html` in a real browser (Debian's chromium, headless).

For one example and target:
  1. moac explain FILE --html --target=T writes the page; it must reference nothing outside itself;
  2. chromium loads PAGE#selftest,line=N and dumps the DOM after the page's script ran: <body data-status> must
     be "ready" and chromium's log must hold no console message (the page writes none; a script error
     is one); the script has clicked every source line and hovered over every token, and written, into
     #selftest, the C lines each selected or highlighted;
  3. the oracle, independent of the page's own map: the /* FILE:LINE */ comments in the C that
     `moac compile FILE --target=T` prints. For every source line N, the commented C lines the click
     selected must be exactly those whose comment names N (uncommented lines, such as a loop's header,
     may be selected too); hovering over the tokens of a line must highlight, together, the same
     commented C lines, and each token none of another line. The page's C must be that C, line for line;
  4. with --screenshot, the same chromium run renders the page, with source line N (that of the kernel's
     first statement) selected after the self-test, into OUT/NAME.png.
Exit status 0: passed; 1: failed; 77: chromium is not installed (ctest reports the test as skipped).
"""
import argparse
import html.parser
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile


class PageDom(html.parser.HTMLParser):
    """The parts of the dumped DOM the test reads: body's status, #selftest's text, the C pane's lines."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.status = None
        self.selftest = ""
        self.code = {}  # C line number -> its text
        self.selected = set()  # the C lines selected when the DOM was dumped
        self._in = None  # "selftest" or a C line number, while inside that element

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "body":
            self.status = a.get("data-status")
        elif tag == "pre" and a.get("id") == "selftest":
            self._in = "selftest"
        elif tag == "div" and "data-cline" in a:
            self._in = int(a["data-cline"])
            self.code[self._in] = ""
            if "sel" in (a.get("class") or "").split():
                self.selected.add(self._in)

    def handle_endtag(self, tag):
        if tag in ("pre", "div"):
            self._in = None

    def handle_data(self, data):
        if self._in == "selftest":
            self.selftest += data
        elif isinstance(self._in, int):
            self.code[self._in] += data


def fail(message):
    print("FAIL: " + message)
    sys.exit(1)


def chromium(browser, profile, *args):
    """Runs headless chromium (as root it needs --no-sandbox); returns (stdout, stderr)."""
    command = [browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
               "--disable-extensions", "--disable-background-networking", "--user-data-dir=" + profile,
               "--enable-logging=stderr", "--v=0", *args]
    env = dict(os.environ, DBUS_SESSION_BUS_ADDRESS="disabled:")
    try:
        run = subprocess.run(command, capture_output=True, text=True, timeout=120, env=env)
    except subprocess.TimeoutExpired:
        fail("chromium did not finish in 120 s: " + " ".join(command))
    if run.returncode != 0:
        fail("chromium exited with %d:\n%s" % (run.returncode, run.stderr))
    return run.stdout, run.stderr


def comment_oracle(code, stem):
    """{.moa line: set of C line numbers whose /* STEM:LINE */ comments name it}, and all commented lines."""
    pattern = re.compile(r"/\* " + re.escape(stem) + r":(\d+) \*/")
    oracle, commented = {}, set()
    for number, line in enumerate(code.split("\n"), start=1):
        for match in pattern.finditer(line):
            oracle.setdefault(int(match.group(1)), set()).add(number)
            commented.add(number)
    return oracle, commented


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--moac", required=True)
    parser.add_argument("--example", required=True)
    parser.add_argument("--target", required=True)
    parser.add_argument("--out", required=True, help="the folder for the page and the screenshot")
    parser.add_argument("--screenshot", action="store_true")
    args = parser.parse_args()

    browser = os.environ.get("MOAC_CHROMIUM") or shutil.which("chromium")
    if not browser:
        print("SKIP: chromium is not installed (scripts/setup installs Debian's chromium)")
        sys.exit(77)
    os.makedirs(args.out, exist_ok=True)
    stem = os.path.basename(args.example)
    name = "%s-%s" % (stem[:-len(".moa")], args.target)
    page = os.path.abspath(os.path.join(args.out, name + ".html"))

    subprocess.run([args.moac, "explain", args.example, "--html", "-o", page, "--target=" + args.target], check=True)
    # In the example's folder: the page's C names the file without its folder.
    code = subprocess.run([os.path.abspath(args.moac), "compile", stem, "--target=" + args.target], check=True,
                          capture_output=True, text=True, cwd=os.path.dirname(os.path.abspath(args.example))).stdout
    with open(page, encoding="utf-8") as f:
        text = f.read()
    for external in ("<link", " src=", "http://", "https://", "@import", "url("):
        if external in text:
            fail("the page refers to something outside itself: %r" % external)
    if os.path.dirname(os.path.abspath(args.example)) in text:
        fail("the page names the example's folder")

    oracle, commented = comment_oracle(code, stem)
    if not oracle:
        fail("the C has no /* %s:LINE */ comment: nothing to check" % stem)
    # One chromium run: the self-test, then the line of the kernel's first statement selected for the
    # screenshot.
    first = next(n for n, lines in sorted(oracle.items()) if min(commented) in lines)
    shot = os.path.join(os.path.abspath(args.out), name + ".png")
    if os.path.exists(shot):
        os.remove(shot)
    screenshot = ["--hide-scrollbars", "--window-size=1600,1000", "--screenshot=" + shot] if args.screenshot else []
    with tempfile.TemporaryDirectory() as profile:
        dom_text, log = chromium(browser, profile, *screenshot, "--dump-dom",
                                 "file://%s#selftest,line=%d" % (page, first))
    console = [line for line in log.splitlines() if ":CONSOLE" in line]
    if console:
        fail("the page wrote to the console:\n" + "\n".join(console))
    dom = PageDom()
    dom.feed(dom_text)
    if dom.status != "ready":
        fail("the page's status is %r, not 'ready'" % dom.status)
    page_code = [dom.code[n] for n in sorted(dom.code)]
    if page_code != code.rstrip("\n").split("\n"):
        fail("the page's C is not what moac compile prints")

    selftest = json.loads(dom.selftest)
    clicked = {int(line): set(c_lines) for line, c_lines in selftest["click"].items()}
    for line in sorted(set(clicked) | set(oracle)):
        selected = clicked.get(line, set()) & commented
        expected = oracle.get(line, set())
        if selected != expected:
            fail("clicking source line %d selects the commented C lines %s; their comments say %s" %
                 (line, sorted(selected), sorted(expected)))
    # Hovering over a token highlights C lines of that token's source line only, and the tokens of a line
    # together highlight every commented C line of it (each statement is at one of its tokens).
    hovered = {}
    for loc, c_lines in selftest["hover"].items():
        line = int(loc.split(":")[0])
        lit = set(c_lines) & commented
        if not lit <= oracle.get(line, set()):
            fail("hovering over the token at %s highlights the commented C lines %s; of line %d the comments "
                 "name only %s" % (loc, sorted(lit), line, sorted(oracle.get(line, set()))))
        hovered.setdefault(line, set()).update(lit)
    for line, expected in sorted(oracle.items()):
        if hovered.get(line, set()) != expected:
            fail("hovering over the tokens of line %d highlights the commented C lines %s; their comments say %s" %
                 (line, sorted(hovered.get(line, set())), sorted(expected)))
    if dom.selected & commented != oracle[first]:
        fail("after #line=%d the commented C lines selected are %s; their comments say %s" %
             (first, sorted(dom.selected & commented), sorted(oracle[first])))
    print("%s: %d source lines clicked, %d tokens hovered over, %d C lines with comments matched" %
          (name, len(clicked), len(selftest["hover"]), sum(len(v) for v in oracle.values())))

    if args.screenshot:
        with open(shot, "rb") as f:
            if f.read(8) != b"\x89PNG\r\n\x1a\n":
                fail("the screenshot %s is not a PNG" % shot)
        print("screenshot, source line %d selected: %s" % (first, shot))

if __name__ == "__main__":
    main()
