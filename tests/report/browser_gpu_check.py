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

from browser_common import Browser
from selenium.webdriver.common.by import By

html, out, slow = sys.argv[1], sys.argv[2], sys.argv[3]
os.makedirs(out, exist_ok=True)
b = Browser("cs_selenium_gpu_")
drv, check = b.drv, b.check
try:
    b.open(html)
    b.check_console()

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
        b.check_fits(w)
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

    b.check_console(" after interaction")
finally:
    b.quit()
b.finish(out)
