#!/usr/bin/python3
"""Loads a report in headless Debian chromium (chromedriver + python3-selenium) and checks it fits.

usage: browser_fit.py REPORT.html OUT_DIR NAME MAX_HEIGHT_PX
Checks: no console errors; no horizontal overflow at 1024 and 1920 px wide; the page at 1400 px is
at most MAX_HEIGHT_PX tall (long names shortened, not wrapped into tall rows). Saves
OUT_DIR/NAME_<width>.png and prints the heights. Exits 1 with one line per failed check.
"""
import os
import sys

from browser_common import Browser

html, out, name, max_h = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
os.makedirs(out, exist_ok=True)
b = Browser("cs_fit_")
drv = b.drv
try:
    b.open(html)
    for w in (1024, 1400, 1920):
        over = b.overflow_at(w)
        height = drv.execute_script("return document.documentElement.scrollHeight;")
        print("width %d height %d overflow %d" % (w, height, over))
        if over > 0:
            b.failures.append("horizontal overflow of %d px at %d px wide" % (over, w))
        if w == 1400 and height > max_h:
            b.failures.append("page is %d px tall at 1400 px, more than %d" % (height, max_h))
        drv.save_screenshot(os.path.join(out, "%s_%d.png" % (name, w)))
    b.check_console()
finally:
    b.quit()
b.finish(out)
