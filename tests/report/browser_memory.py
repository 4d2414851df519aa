#!/usr/bin/python3
"""Drives headless Debian chromium (chromedriver + python3-selenium) against a cluster report's
memory section (report/cluster_page/memory_section.cpp).

usage: browser_memory.py REPORT.html OUT_DIR IMBALANCED_RANK LEAKING_RANK
Checks: no console errors; the section is there with both findings; the sorted peaks put the
imbalanced rank first, red and labelled, the leaking rank labelled too; the rank x step view has a
cell per rank and step; opening the imbalanced rank's drill-down shows its curve (a band with
points) and what it held at the peak; no horizontal overflow at 1024 and 1400 px. Screenshot:
OUT_DIR/report_memory.png (printed). Exits 1 with one line per failed check.
"""
import os
import sys

from browser_common import Browser
from selenium.webdriver.common.by import By

html, out, big, leak = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
os.makedirs(out, exist_ok=True)
b = Browser("cs_selenium_mem_")
drv, check = b.drv, b.check
try:
    b.open(html)
    b.check_console()
    sec = drv.find_elements(By.CSS_SELECTOR, "section#memory")
    check(bool(sec), "no memory section")
    items = [li.text for li in drv.find_elements(By.CSS_SELECTOR, "#mem-findings li")]
    check(any(("rank %s peaks" % big) in t for t in items), "no imbalance finding for rank " + big)
    check(any(("on rank %s (leak?)" % leak) in t for t in items), "no leak finding for rank " + leak)
    bars = drv.find_elements(By.CSS_SELECTOR, "#mem-peaks rect")
    check(len(bars) > 0, "no peak bars")
    if bars:
        check(bars[0].get_attribute("data-rank") == big, "the highest peak is not rank " + big)
        check("memflag" in bars[0].get_attribute("class"), "rank %s's bar is not flagged" % big)
    labels = [t.text for t in drv.find_elements(By.CSS_SELECTOR, "#mem-peaks text.memlabel")]
    check("rank " + big in labels and "rank " + leak in labels,
          "flagged ranks not labelled: %s" % labels)
    cells = drv.find_elements(By.CSS_SELECTOR, "#mem-rank-step rect")
    check(len(cells) >= 16 * 4, "rank x step view has %d cells" % len(cells))
    det = drv.find_elements(By.CSS_SELECTOR, "details#mem-rank-" + big)
    check(bool(det), "no drill-down for rank " + big)
    if det:
        drv.execute_script("arguments[0].scrollIntoView({block: 'center'});", det[0])
        det[0].find_element(By.TAG_NAME, "summary").click()
        check(det[0].get_attribute("open") is not None, "drill-down does not open")
        poly = det[0].find_elements(By.CSS_SELECTOR, "svg.memcurve polygon")
        check(bool(poly) and len(poly[0].get_attribute("points").split()) >= 8,
              "no curve in the drill-down")
        shown = det[0].find_elements(By.CSS_SELECTOR, "svg.memcurve")
        check(bool(shown) and shown[0].size["height"] > 50, "the curve is not displayed")
        check("aten::empty_strided" in det[0].text, "the peak holders are not shown")
    for w in (1024, 1400):
        b.check_fits(w)
    drv.set_window_size(1400, 1400)
    drv.execute_script("document.getElementById('memory').scrollIntoView();")
    png = os.path.join(out, "report_memory.png")
    drv.save_screenshot(png)
    print("screenshot " + os.path.abspath(png))
finally:
    b.quit()
b.finish(out)
