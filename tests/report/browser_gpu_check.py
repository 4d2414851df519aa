#!/usr/bin/python3
"""Drives headless Debian chromium (chromedriver + python3-selenium) against a GPU job's report.

usage: browser_gpu_check.py REPORT.html OUT_DIR SLOW_RANK
Checks: no console errors (on load and after interaction); every section present; the slow
rank's finding (with its cause) in the first screen; its row in the step table marked slow; no
horizontal overflow at 1024/1400/1920 px; a header click sorts the step table; typing in its
search box filters to the slow rank; the collectives table shows bus bandwidths.
Screenshots go to OUT_DIR. Prints the load time. Exits 1 with one line per failed check.
"""
import os
import sys
import tempfile

from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By

html, out, slow = sys.argv[1], sys.argv[2], sys.argv[3]
os.makedirs(out, exist_ok=True)
failures = []


def check(ok, what):
    if not ok:
        failures.append(what)


opts = Options()
opts.binary_location = "/usr/bin/chromium"
profile = tempfile.mkdtemp(prefix="cs_selenium_")
for a in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
          "--no-first-run", "--disable-background-networking", "--disable-component-update",
          "--user-data-dir=" + profile):
    opts.add_argument(a)
opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
drv = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=opts)
try:
    drv.set_window_size(1400, 900)
    drv.get("file://" + os.path.abspath(html))
    load_ms = drv.execute_script(
        "var t=performance.getEntriesByType('navigation')[0];return t.loadEventEnd-t.startTime;")
    print("load_ms %.0f size_bytes %d" % (load_ms, os.path.getsize(html)))
    errors = [e for e in drv.get_log("browser") if e.get("level") == "SEVERE"]
    check(not errors, "console errors: %s" % errors[:3])

    for sid in ("overview", "findings", "steps", "collectives", "waits", "kernels"):
        check(bool(drv.find_elements(By.ID, sid)), "no section #" + sid)

    li = drv.find_elements(By.CSS_SELECTOR, "#findings li[data-rank='%s']" % slow)
    check(bool(li), "no finding names rank %s" % slow)
    if li:
        top = drv.execute_script("return arguments[0].getBoundingClientRect().top;", li[0])
        check(0 <= top < 900, "rank %s's finding is not in the first screen (top %d px)" % (slow, top))
        check("Slow rank " + slow in li[0].text and "cause: compute" in li[0].text,
              "finding does not say rank %s is slow and why: %s" % (slow, li[0].text))

    marked = drv.execute_script(
        "return Array.from(document.querySelectorAll('#gpu-steps tbody tr'))"
        ".filter(r=>r.cells[r.cells.length-1].textContent==='slow').map(r=>r.cells[0].textContent);")
    check(marked == [slow], "step table marks %s as slow, not rank %s" % (marked, slow))

    for w in (1024, 1400, 1920):
        drv.set_window_size(w, 900)
        over = drv.execute_script(
            "return document.documentElement.scrollWidth-document.documentElement.clientWidth;")
        check(over <= 0, "horizontal overflow of %d px at %d px wide" % (over, w))
        drv.save_screenshot(os.path.join(out, "gpu_report_%d.png" % w))
    drv.set_window_size(1400, 900)

    # Sorting: the computing column of the step table, twice.
    table = drv.find_element(By.ID, "gpu-steps")
    head = table.find_elements(By.CSS_SELECTOR, "thead th")[1]
    read = ("return Array.from(arguments[0].tBodies[0].rows)"
            ".map(r=>parseFloat(r.cells[1].textContent.replace(/,/g,'')));")
    for want in ("descending", "ascending"):
        drv.execute_script("arguments[0].scrollIntoView({block:'center'});", head)
        head.click()
        vals = drv.execute_script(read, table)
        ordered = sorted(vals, reverse=(want == "descending"))
        check(len(vals) > 1 and vals == ordered, "computing column not %s after a click: %s" % (want, vals))
    # A descending sort puts the slow rank (it computes longest) first.
    head.click()
    first = drv.execute_script("return arguments[0].tBodies[0].rows[0].cells[0].textContent;", table)
    check(first == slow, "longest computing is rank %s, not the slow rank %s" % (first, slow))

    box = drv.find_elements(By.CSS_SELECTOR, "#steps .tsearch input")
    check(bool(box), "no search box before the step table")
    if box:
        box[0].send_keys("slow")
        shown = drv.execute_script(
            "return Array.from(arguments[0].tBodies[0].rows).filter(r=>r.style.display!=='none')"
            ".map(r=>r.cells[0].textContent);", table)
        check(shown == [slow], "search for 'slow' shows rows %s, not rank %s" % (shown, slow))

    bw = drv.execute_script(
        "var t=document.querySelector('#collectives table');if(!t)return [];"
        "var h=Array.from(t.tHead.rows[0].cells).findIndex(c=>c.textContent.indexOf('bus bandwidth')>=0);"
        "return Array.from(t.tBodies[0].rows).map(r=>parseFloat(r.cells[h].textContent.replace(/,/g,'')));")
    check(len(bw) > 0 and all(v > 0 for v in bw), "collectives table has no bus bandwidths: %s" % [v for v in bw if not v > 0][:5])

    errors = [e for e in drv.get_log("browser") if e.get("level") == "SEVERE"]
    check(not errors, "console errors after interaction: %s" % errors[:3])
finally:
    drv.quit()

print("screenshots " + os.path.abspath(out))
for f in failures:
    print("FAIL: " + f)
sys.exit(1 if failures else 0)
