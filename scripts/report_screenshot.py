"""Render the demo audit's HTML report and take a screenshot of it in headless Chromium.

Runs ``fastfair audit --demo --report REPORT`` (sex, race and sex & race on the bundled UCI
Adult data), then

    chromium --headless --no-sandbox --screenshot=OUT --window-size=1200,HEIGHT file://REPORT

and prints the path and size of the PNG. Chromium from Debian: ``apt-get install chromium``.
Headless Chromium's window is at least 500 px wide: a narrower `--width` (a phone, e.g.
420) shows the report in an iframe of that width and crops the PNG to it.
The default output is the screenshot the docs show (docs/img/audit_report.png, the first
screen of the report in a 1,200 px window), reduced to a 64-colour palette with Pillow
(installed with matplotlib) to keep the repository small; ``--colors 0`` keeps the full PNG.

    python scripts/report_screenshot.py [--out docs/img/audit_report.png] [--height 1000]
        [--permutations 9999] [--report audit.html] [--browser chromium] [--colors 64]
        [--width 1200]

    python scripts/report_screenshot.py --width 420 --height 1400 \\
        --out docs/img/audit_report_narrow.png   # the report on a phone
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import shutil
import subprocess
import sys
import tempfile

from fastfair.cli import main as fastfair_main


def render(report: str, permutations: int) -> None:
    """Write the demo audit's report (the same as `fastfair audit --demo --report`)."""
    argv = ["audit", "--demo", "--quiet", "--force", "--report", report]
    with contextlib.redirect_stdout(io.StringIO()):  # the printed table is not needed here
        code = fastfair_main([*argv, "--permutations", str(permutations)])
    if code != 0:
        sys.exit(f"fastfair audit --demo failed with status {code}")


#: Headless Chromium's smallest window width.
MIN_WINDOW = 500


def screenshot(browser: str, report: str, out: str, width: int, height: int) -> None:
    """Screenshot `report` with headless Chromium in a width x height window (narrower
    than MIN_WINDOW: in an iframe of that width, the PNG cropped to it)."""
    exe = shutil.which(browser)
    if exe is None:
        sys.exit(f"{browser} not found: apt-get install chromium (or pass --browser)")
    with tempfile.TemporaryDirectory() as profile:
        page = "file://" + os.path.abspath(report)
        if width < MIN_WINDOW:
            page = os.path.join(profile, "narrow.html")
            with open(page, "w") as fh:
                fh.write(
                    "<!DOCTYPE html><body style='margin:0'><iframe src='file://"
                    f"{os.path.abspath(report)}' style='width:{width}px;height:{height}px;"
                    "border:0'></iframe></body>"
                )
            page = "file://" + page
        cmd = [
            exe,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--hide-scrollbars",
            "--allow-file-access-from-files",
            f"--user-data-dir={profile}",
            f"--screenshot={os.path.abspath(out)}",
            f"--window-size={max(width, MIN_WINDOW)},{height}",
            page,
        ]
        subprocess.run(cmd, check=True, capture_output=True, timeout=180)
    if width < MIN_WINDOW:
        from PIL import Image

        with Image.open(out) as im:
            cropped = im.crop((0, 0, width, height))
        cropped.save(out)


def reduce_palette(path: str, colors: int) -> None:
    """Rewrite the PNG with a `colors`-colour palette (text and flat plots lose nothing)."""
    from PIL import Image

    with Image.open(path) as im:
        small = im.convert("RGB").quantize(colors=colors, method=Image.Quantize.MEDIANCUT)
    small.save(path, optimize=True)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=os.path.join("docs", "img", "audit_report.png"))
    parser.add_argument("--report", default=None, help="keep the HTML report here")
    parser.add_argument("--width", type=int, default=1200)
    parser.add_argument("--height", type=int, default=1000)
    parser.add_argument("--permutations", type=int, default=9999)
    parser.add_argument("--browser", default="chromium")
    parser.add_argument("--colors", type=int, default=64, help="palette size; 0: full colour")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        report = args.report or os.path.join(tmp, "audit.html")
        render(report, args.permutations)
        os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
        screenshot(args.browser, report, args.out, args.width, args.height)
    if args.colors:
        reduce_palette(args.out, args.colors)
    print(f"{args.out}: {os.path.getsize(args.out):,} bytes ({args.width}x{args.height} window)")


if __name__ == "__main__":
    main()
