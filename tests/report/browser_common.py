"""What every browser check shares: headless Debian chromium under chromedriver (python3-selenium),
a list of failed checks, the console and overflow probes, and the closing lines and exit code.

    from browser_common import Browser
    b = Browser("cs_selenium_")          # a fresh profile directory with this prefix
    b.open(html)                          # prints "load_ms N size_bytes M"
    b.check(cond, "what failed")
    ...                                   # inside try: ... finally: b.quit()
    b.finish(out)                         # prints the failures, exits 1 if any
"""
import os
import sys
import tempfile

from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"


class Browser:
    """One headless chromium with its console log kept, and the failed checks of one script."""

    def __init__(self, profile_prefix, width=1400, height=900):
        opts = Options()
        opts.binary_location = CHROMIUM
        profile = tempfile.mkdtemp(prefix=profile_prefix)
        for a in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                  "--no-first-run", "--disable-background-networking",
                  "--disable-component-update", "--user-data-dir=" + profile):
            opts.add_argument(a)
        opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        self.drv = webdriver.Chrome(service=Service(CHROMEDRIVER), options=opts)
        self.drv.set_window_size(width, height)
        self.failures = []

    def check(self, ok, what):
        """Records `what` as a failure when `ok` is false."""
        if not ok:
            self.failures.append(what)

    def open(self, html):
        """Loads the file and prints its load time and size; returns the load time in ms."""
        self.drv.get("file://" + os.path.abspath(html))
        load_ms = self.drv.execute_script(
            "var t=performance.getEntriesByType('navigation')[0];return t.loadEventEnd-t.startTime;")
        print("load_ms %.0f size_bytes %d" % (load_ms, os.path.getsize(html)))
        return load_ms

    def check_console(self, when=""):
        """Fails on any SEVERE console message logged so far."""
        errors = [e for e in self.drv.get_log("browser") if e.get("level") == "SEVERE"]
        self.check(not errors, "console errors%s: %s" % (when, errors[:3]))

    def overflow_at(self, width, height=900):
        """Resizes the window; returns how many px the page is wider than it (0 when it fits)."""
        self.drv.set_window_size(width, height)
        return self.drv.execute_script(
            "return document.documentElement.scrollWidth-document.documentElement.clientWidth;")

    def check_fits(self, width, height=900):
        """Resizes the window and fails when the page scrolls sideways; returns the overflow."""
        over = self.overflow_at(width, height)
        self.check(over <= 0, "horizontal overflow of %d px at %d px wide" % (over, width))
        return over

    def quit(self):
        """Ends chromium (call it in a `finally`, so an exception still ends it)."""
        self.drv.quit()

    def finish(self, out):
        """Prints where the screenshots are and every failure; exits 1 if any."""
        print("screenshots " + os.path.abspath(out))
        for f in self.failures:
            print("FAIL: " + f)
        sys.exit(1 if self.failures else 0)
