#!/usr/bin/python3
"""Loads a report in headless Debian chromium (chromedriver + python3-selenium) and checks it fits.

usage: browser_fit.py REPORT.html OUT_DIR NAME MAX_HEIGHT_PX
Checks: no console errors; no horizontal overflow at 1024 and 1920 px wide; the page at 1400 px is
at most MAX_HEIGHT_PX tall (long names shortened, not wrapped into tall rows). Saves
OUT_DIR/NAME_<width>.png and prints the heights. Exits 1 with one line per failed check.
"""
import os
import sys
import tempfile

from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service

html, out, name, max_h = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
os.makedirs(out, exist_ok=True)
failures = []
opts = Options()
opts.binary_location = "/usr/bin/chromium"
for a in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
          "--no-first-run", "--user-data-dir=" + tempfile.mkdtemp(prefix="cs_fit_")):
    opts.add_argument(a)
opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
drv = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=opts)
try:
    drv.get("file://" + os.path.abspath(html))
    for w in (1024, 1400, 1920):
        drv.set_window_size(w, 900)
        over = drv.execute_script(
            "return document.documentElement.scrollWidth-document.documentElement.clientWidth;")
        height = drv.execute_script("return document.documentElement.scrollHeight;")
        print("width %d height %d overflow %d" % (w, height, over))
        if over > 0:
            failures.append("horizontal overflow of %d px at %d px wide" % (over, w))
        if w == 1400 and height > max_h:
            failures.append("page is %d px tall at 1400 px, more than %d" % (height, max_h))
        drv.save_screenshot(os.path.join(out, "%s_%d.png" % (name, w)))
    errors = [e for e in drv.get_log("browser") if e.get("level") == "SEVERE"]
    if errors:
        failures.append("console errors: %s" % errors[:3])
finally:
    drv.quit()
print("screenshots " + os.path.abspath(out))
for f in failures:
    print("FAIL: " + f)
sys.exit(1 if failures else 0)
