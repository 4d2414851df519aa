#!/usr/bin/python3
"""Prints the median load time (ms) of REPORT.html in headless Chromium over 5 loads.

usage: report_load.py REPORT.html
Load time: performance navigation entry, startTime to loadEventEnd (parsing, inline CSS, the inline
script's sorting/heatmap setup). Uses Debian's chromium + chromedriver + python3-selenium.
"""
import os
import statistics
import sys
import tempfile

from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service

opts = Options()
opts.binary_location = "/usr/bin/chromium"
for a in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
          "--user-data-dir=" + tempfile.mkdtemp(prefix="cs_load_")):
    opts.add_argument(a)
drv = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=opts)
try:
    drv.set_window_size(1400, 900)
    times = []
    for _ in range(5):
        drv.get("about:blank")
        drv.get("file://" + os.path.abspath(sys.argv[1]))
        times.append(drv.execute_script(
            "var t=performance.getEntriesByType('navigation')[0];return t.loadEventEnd-t.startTime;"))
    print("%.0f" % statistics.median(times))
finally:
    drv.quit()
