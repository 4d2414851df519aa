#!/usr/bin/python3
"""Drives headless Debian chromium (chromedriver + python3-selenium) against a cluster report.

usage: browser_check.py REPORT.html OUT_DIR SLOW_RANK
Checks: no console errors; no horizontal overflow at 1024/1400/1920 px; the slow rank's finding in
the first screen; a header click sorts; typing in a search box filters; clicking the slow rank
opens its drill-down with the merge command, its coordinates, groups and steps, its Free per step
by host cause and its host-heaviest operators; the rank x step
heatmap paints the slow rank's cell red in every step; the host section draws the Free per rank
and lists the host-heaviest operators; the group picker lists every group, the
slow links' first; no "0.0 µs" tick beside ms ticks; legends keep values and keys apart.
Screenshots go to OUT_DIR (printed). Prints the load time.
Exits 1 with one line per failed check.
"""
import os
import re
import sys

from browser_common import Browser
from selenium.webdriver.common.by import By

html, out, slow = sys.argv[1], sys.argv[2], sys.argv[3]
os.makedirs(out, exist_ok=True)
b = Browser("cs_selenium_")
drv, check = b.drv, b.check
try:
    b.open(html)
    b.check_console()

    # The slow rank's finding is in the first screen.
    li = drv.find_elements(By.CSS_SELECTOR, "#findings li[data-rank='%s']" % slow)
    check(bool(li), "no finding names rank %s" % slow)
    if li:
        top = drv.execute_script("return arguments[0].getBoundingClientRect().top;", li[0])
        check(0 <= top < 900, "rank %s's finding is not in the first screen (top %d px)" % (slow, top))

    for w in (1024, 1400, 1920):
        b.check_fits(w)
        drv.save_screenshot(os.path.join(out, "report_%d.png" % w))
    drv.set_window_size(1400, 900)

    # The rank x step heatmap: one canvas per step, the slow rank's cell red in each.
    cells = drv.execute_script("""
var H=JSON.parse(document.getElementById('cs-heat').textContent),n=H.ranks.length,p=H.ranks.indexOf(%s);
var cs=document.querySelectorAll('#hm canvas'),out=[];
var cols=Math.max(8,Math.min(128,Math.ceil(Math.sqrt(n*4)))),cell=Math.max(4,Math.min(16,Math.floor(512/cols)));
for(var i=0;i<cs.length;i++){var d=cs[i].getContext('2d').getImageData((p%%cols)*cell+Math.floor(cell/2),
Math.floor(p/cols)*cell+Math.floor(cell/2),1,1).data;out.push([d[0],d[1],d[2]]);}
return [H.steps.length,out];""" % slow)
    check(cells[0] >= 1 and len(cells[1]) == cells[0], "heatmap: %d canvases for %d steps" % (len(cells[1]), cells[0]))
    check(all(r > 150 and g < 110 and b < 110 for r, g, b in cells[1]),
          "heatmap: rank %s's cells are not red: %s" % (slow, cells[1]))
    hm = drv.find_element(By.ID, "hm")
    drv.execute_script("arguments[0].scrollIntoView({block:'center'});", hm)
    drv.save_screenshot(os.path.join(out, "report_heatmap.png"))

    # The host side: the Free-per-rank chart drawn (a bar per rank) and the tables filled.
    bars = drv.find_elements(By.CSS_SELECTOR, "#host svg rect")
    check(len(bars) >= 2, "host section: %d bars in the Free-per-rank chart" % len(bars))
    host_rows = drv.find_elements(By.CSS_SELECTOR, "#host table tbody tr")
    check(len(host_rows) >= 2, "host section: %d table rows" % len(host_rows))
    drv.execute_script("arguments[0].scrollIntoView({block:'start'});", drv.find_element(By.ID, "host"))
    drv.save_screenshot(os.path.join(out, "report_host.png"))

    # Text: no "0.0 µs" tick (ms ticks start at "0"), legends with the slow-link key apart.
    body = drv.execute_script("return document.body.innerText;")
    zeros = re.findall(r"(?<![\d.,])0\.0 \u00b5s", body)
    check(not zeros, "a '0.0 \u00b5s' label is on the page (%d)" % len(zeros))
    legends = drv.execute_script(
        "return Array.from(document.querySelectorAll('.legend')).map(l=>l.textContent);")
    bad = [t for t in legends if re.search(r"GB/s\S?slow link", t)]
    check(not bad, "legend runs value and key together: %s" % bad[:2])

    # The group picker: every group, those with slow links first; picking one marks its row.
    sel = drv.find_elements(By.ID, "gsel")
    check(bool(sel), "no group picker in the matrix section")
    if sel:
        opts_text = drv.execute_script("return Array.from(arguments[0].options).map(o=>o.text);", sel[0])
        ngroups = drv.execute_script(
            "return JSON.parse(document.getElementById('cs-groups').textContent).length;")
        nrows = drv.execute_script("return document.querySelectorAll('#matrix tr[data-group]').length;")
        check(len(opts_text) == ngroups and ngroups >= nrows and ngroups > 6,
              "picker has %d of %d groups (table %d)" % (len(opts_text), ngroups, nrows))
        check(opts_text and "slow links" in opts_text[0], "first group is not a slow link's: %s" % opts_text[:2])
        check(all(re.match(r"(tp|dp|pp) \d+", t) for t in opts_text[:20]),
              "groups not named by what they are: %s" % opts_text[:5])
        summary = drv.find_element(By.ID, "gsum").text
        check("slow links" in summary and "GB/s" in summary, "picked group's numbers: " + summary)
        drv.execute_script("arguments[0].selectedIndex=3;arguments[0].dispatchEvent(new Event('change'));", sel[0])
        picked = drv.find_elements(By.CSS_SELECTOR, "#matrix tr.picked")
        check(len(picked) == 1, "picking a group marks %d rows" % len(picked))
        drv.save_screenshot(os.path.join(out, "report_groups.png"))

    # Sorting: click the step-time header of the steps table twice.
    table = drv.find_element(By.CSS_SELECTOR, "#steps table")
    head = table.find_elements(By.CSS_SELECTOR, "thead th")[1]
    read = "return Array.from(arguments[0].tBodies[0].rows).map(r=>parseFloat(r.cells[1].textContent));"
    for want in ("descending", "ascending"):
        drv.execute_script("arguments[0].scrollIntoView({block:'center'});", head)
        head.click()
        vals = drv.execute_script(read, table)
        ordered = sorted(vals, reverse=(want == "descending"))
        check(len(vals) > 1 and vals == ordered, "step-time column not %s after a click: %s" % (want, vals))
        check(head.get_attribute("aria-sort") == want, "header not marked %s" % want)

    # Search: the box before the steps table filters to the slow rank.
    box = drv.find_elements(By.CSS_SELECTOR, "#steps .tsearch input")
    check(bool(box), "no search box before the steps table")
    if box:
        box[0].send_keys(slow)
        shown = drv.execute_script(
            "return Array.from(arguments[0].tBodies[0].rows).filter(r=>r.style.display!=='none')"
            ".map(r=>r.cells[0].textContent);", table)
        total = drv.execute_script("return arguments[0].tBodies[0].rows.length;", table)
        check(slow in shown and len(shown) < total,
              "search for %s shows %s of %d rows" % (slow, shown, total))
        drv.save_screenshot(os.path.join(out, "report_search.png"))

    # Drill-down from the finding.
    drv.execute_script("window.scrollTo(0,0);")
    if li:
        li[0].click()
        panel = drv.find_elements(By.ID, "drill")
        check(bool(panel) and panel[0].is_displayed(), "clicking the finding opened no drill-down")
        if panel:
            text = panel[0].text
            check("Rank " + slow in text, "drill-down does not name rank " + slow)
            check("clusterscope merge" in text and "--ranks " + slow + "," in text,
                  "drill-down has no merge command for rank " + slow)
            check("Coordinates: stage (pp)" in text and "tp index" in text,
                  "drill-down has no coordinates: " + text[:200])
            check("Its groups" in text and re.search(r"\btp \d+ \(ranks", text),
                  "drill-down lists no named groups")
            check("Its steps" in text and "vs stage median" in text, "drill-down has no steps")
            # Its host side: the Free breakdown per step (the parts add up) and its
            # host-heaviest operators, one table row per embedded step / operator.
            check("Host side: its Free per step by cause" in text and
                  "Its host-heaviest operators" in text, "drill-down has no host side")
            host = drv.execute_script(
                "var x=JSON.parse(document.getElementById('cs-host').textContent);"
                "return [x.f[arguments[0]]||[],x.o[arguments[0]]||[]];", slow)
            tabs = panel[0].find_elements(By.CSS_SELECTOR, "table.hostdrill")
            check(len(tabs) == 2, "drill-down host tables: %d" % len(tabs))
            check(len(host[0]) >= 1 and len(host[1]) >= 1,
                  "no host data embedded for rank " + slow)
            for row in host[0]:
                check(abs(sum(row[2:]) - row[1]) <= 0.01 * max(1.0, row[1]),
                      "Free parts of rank %s step %s do not add up: %s" % (slow, row[0], row))
            if len(tabs) == 2:
                n = [len(t.find_elements(By.CSS_SELECTOR, "tbody tr")) for t in tabs]
                check(n == [len(host[0]), len(host[1])],
                      "drill-down host rows %s, embedded %d steps, %d operators" %
                      (n, len(host[0]), len(host[1])))
                cells = tabs[1].find_elements(By.CSS_SELECTOR, "tbody tr td")
                check(bool(cells) and cells[0].text == host[1][0][0],
                      "first host operator of the drill-down is not the embedded one")
            drv.save_screenshot(os.path.join(out, "report_drill.png"))
    b.check_console(" after interaction")
finally:
    b.quit()
b.finish(out)
