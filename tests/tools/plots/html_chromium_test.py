#!/usr/bin/env python3
"""`collsel report --html` opened in headless Chromium, without a network: the plots render.

1. `collsel report FIXTURE --html OUT` writes OUT/index.html.
2. The page names no URL (no http://, https://, <link>, src=): it must open offline.
3. Chromium loads it from file:// with every network path closed (an unresolvable host map and a
   dead proxy) and dumps the DOM. The page's own inline script has marked each <figure
   class="plot"> whose SVG has a size and a drawn, non-empty gnuplot series, and written the count
   on <body data-plots-rendered>; all four must be there.
4. A full-page screenshot must decode as a PNG of the window's size and show the plots' colours
   (the decision map's cells cover thousands of pixels): not a blank or an error page.

Exit 77 (CTest's SKIP_RETURN_CODE) only when Chromium is absent and apt has no candidate for it;
absent but installable is a failure that says how to install it.
"""
import argparse
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib

SKIP = 77
FIGURES = ["plot-scatter", "plot-error_by_size", "plot-call_sites", "plot-decision_map"]
WINDOW = (1200, 3000)
# Colours of the plots (tools/plots.cpp): bcast.flat/scatter.flat blue, the binomial indigo.
PLOT_COLOURS = [(0x1F, 0x77, 0xB4), (0x39, 0x3B, 0x79)]


def fail(message):
    print(f"FAIL: {message}", file=sys.stderr)
    sys.exit(1)


def find_chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    candidate = ""
    if shutil.which("apt-cache"):
        policy = subprocess.run(["apt-cache", "policy", "chromium"], capture_output=True,
                                text=True, check=False).stdout
        match = re.search(r"Candidate:\s*(\S+)", policy)
        candidate = match.group(1) if match else ""
    if candidate and candidate != "(none)":
        fail("chromium is not installed but apt can install it: run scripts/install-deps.sh "
             "(or apt-get install --no-install-recommends chromium)")
    print("SKIP: chromium is not installed and apt has no candidate for it", file=sys.stderr)
    sys.exit(SKIP)


def chromium_command(chromium, profile, *extra):
    # No network at all: every host name fails to resolve and any proxy fetch goes to a closed
    # port; background services (updates, sync, metrics) are off. A private profile keeps the
    # run from touching ~/.config.
    return [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
            "--disable-background-networking", "--disable-component-update", "--disable-sync",
            "--disable-default-apps", "--disable-extensions", "--metrics-recording-only",
            "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE localhost",
            "--proxy-server=http://127.0.0.1:9", "--proxy-bypass-list=<-loopback>",
            f"--user-data-dir={profile}", "--hide-scrollbars", *extra]


def run_chromium(command, home):
    # HOME too: Chromium's crash handler and font caches write there.
    done = subprocess.run(command, capture_output=True, text=True, timeout=180, check=False,
                          env=dict(os.environ, HOME=home))
    if done.returncode != 0:
        fail(f"chromium exited {done.returncode}: {done.stderr[-2000:]}")
    return done.stdout


def png_pixels(path):
    """(width, height, rows of (r, g, b)) of an 8-bit RGB or RGBA PNG, unfiltered by hand."""
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        fail(f"{path} is not a PNG")
    pos, idat, header = 8, b"", None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    width, height, depth, colour, _, _, interlace = header
    if depth != 8 or colour not in (2, 6) or interlace != 0:
        fail(f"unexpected PNG format: depth {depth}, colour type {colour}, interlace {interlace}")
    bpp = 3 if colour == 2 else 4
    raw = zlib.decompress(idat)
    stride = width * bpp
    rows, prev = [], bytearray(stride)
    for y in range(height):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 0xFF
            elif f == 2:
                line[i] = (line[i] + b) & 0xFF
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 0xFF
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                line[i] = (line[i] + pred) & 0xFF
        rows.append(line)
        prev = line
    return width, height, bpp, rows


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--collsel", required=True)
    parser.add_argument("--fixture", required=True, help="a log directory with a traced run")
    parser.add_argument("--keep", help="copy the page and the screenshot to this directory")
    args = parser.parse_args()

    chromium = find_chromium()
    with tempfile.TemporaryDirectory(prefix="collsel-html-") as tmp:
        out = os.path.join(tmp, "report")
        done = subprocess.run([args.collsel, "report", args.fixture, "--html", out],
                              capture_output=True, text=True, check=False)
        if done.returncode != 0:
            fail(f"collsel report --html exited {done.returncode}: {done.stderr}")
        index = os.path.join(out, "index.html")
        page = open(index, encoding="utf-8").read()
        for forbidden in ("http://", "https://", "<link", " src="):
            if forbidden in page:
                at = page.index(forbidden)
                fail(f"the page must be self-contained but holds {forbidden!r}: "
                     f"...{page[max(0, at - 80):at + 80]}...")
        for figure in FIGURES:
            if f'id="{figure}"' not in page:
                fail(f"the page has no figure {figure}")

        profile = os.path.join(tmp, "profile")
        dom = run_chromium(chromium_command(chromium, profile, "--dump-dom", f"file://{index}"),
                           tmp)
        body = re.search(r"<body([^>]*)>", dom)
        if not body:
            fail(f"no <body> in Chromium's DOM: {dom[:500]}")
        attrs = dict(re.findall(r'([\w-]+)="([^"]*)"', body.group(1)))
        rendered = attrs.get("data-plots-rendered")
        expected = attrs.get("data-plots-expected")
        if rendered is None:
            fail("the page's render check did not run (no data-plots-rendered on <body>)")
        for figure in FIGURES:
            tag = re.search(rf'<figure[^>]*id="{figure}"[^>]*>', dom)
            if not tag or 'data-rendered="yes"' not in tag.group(0):
                fail(f"{figure} did not render in Chromium: {tag.group(0) if tag else 'absent'}")
        if rendered != str(len(FIGURES)) or expected != str(len(FIGURES)):
            fail(f"plots rendered {rendered} of {expected}, expected {len(FIGURES)}")
        print(f"chromium: {rendered} of {expected} plots rendered")

        shot = os.path.join(tmp, "report.png")
        run_chromium(chromium_command(chromium, profile, f"--window-size={WINDOW[0]},{WINDOW[1]}",
                                      f"--screenshot={shot}", f"file://{index}"), tmp)
        size = os.path.getsize(shot)
        if size < 50_000:
            fail(f"the screenshot is {size} bytes: a blank or error page")
        width, height, bpp, rows = png_pixels(shot)
        if (width, height) != WINDOW:
            fail(f"the screenshot is {width}x{height}, expected {WINDOW[0]}x{WINDOW[1]}")
        counts = {c: 0 for c in PLOT_COLOURS}
        non_white = 0
        for line in rows:
            for x in range(0, width * bpp, bpp):
                px = (line[x], line[x + 1], line[x + 2])
                if px in counts:
                    counts[px] += 1
                if px != (255, 255, 255):
                    non_white += 1
        print(f"screenshot: {width}x{height}, {size} bytes, {non_white} non-white pixels, "
              f"plot colours {counts}")
        if non_white < width * height // 50:
            fail("the screenshot is almost blank")
        for colour, n in counts.items():
            if n < 500:
                fail(f"the screenshot shows too little of the plots' colour #{bytes(colour).hex()} "
                     f"({n} pixels): the plots did not paint")
        if args.keep:
            os.makedirs(args.keep, exist_ok=True)
            shutil.copy(index, args.keep)
            shutil.copy(shot, args.keep)
    print("ok")


if __name__ == "__main__":
    main()
