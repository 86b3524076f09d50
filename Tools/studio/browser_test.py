#!/usr/bin/env python3
"""The studio in a real browser: headless Chromium driven by Selenium (Debian's chromium and
chromium-driver, selenium from PyPI).

    python3 Tools/studio/browser_test.py --kvstore .build/debug/kvstore [--screenshots]

Fills a fresh store with the CLI, starts `kvstore studio` on it, and checks every step of the
issue: refused without the token, open with it, browse a kind, page, sort, query (and a query
error at its column), follow a reference, see a CLI write change a row without reloading, travel
back and see the old value, edit a value and read it with `kvstore get`. Prints the figures
(first paint, commit → page latency p50/p99). Exits non-zero on any failure. With --screenshots,
writes Tools/studio/screenshots/*.png.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

HERE = os.path.dirname(os.path.abspath(__file__))


class Failure(Exception):
    pass


def check(condition, message):
    if not condition:
        raise Failure(message)


class Studio:
    """A store filled through the CLI, and `kvstore studio` serving it."""

    def __init__(self, kvstore, directory):
        self.kvstore = os.path.abspath(kvstore)
        self.path = os.path.join(directory, "store")
        lines = [json.dumps({"kind": "person", "id": "p%03d" % n, "values": {
            "name": "Person %d" % n, "age": n % 50, "address": {"city": ["London", "Paris", "Zurich"][n % 3], "zip": str(1000 + n)},
            "tags": ["t%d" % (n % 4)]}})
                 for n in range(250)]
        lines += [json.dumps({"kind": "invoice", "id": str(n), "values": {"customer": {"$ref": "person/p001"}, "amount": n}})
                  for n in range(3)]
        records = os.path.join(directory, "records.jsonl")
        with open(records, "w") as f:
            f.write("\n".join(lines) + "\n")
        self.cli("load", self.path, records)
        self.cli("index", "add", self.path, "invoice", "customer")
        self.cli("journal", "consumers", self.path, "--register", "mailer", "--after", "200")
        self.process = subprocess.Popen(
            [self.kvstore, "studio", self.path, "--listen", "127.0.0.1:0", "--no-browser"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        line = self.process.stdout.readline().strip()
        check(line.startswith("studio: http://127.0.0.1:"), f"kvstore studio printed {line!r}")
        self.url = line[len("studio: "):]
        self.base = self.url.split("/?token=")[0]

    def cli(self, *arguments):
        result = subprocess.run([self.kvstore, *arguments], capture_output=True, text=True)
        check(result.returncode == 0, f"kvstore {' '.join(arguments)}: {result.stderr.strip()}")
        return result.stdout.strip()

    def last_sequence(self):
        return json.loads(self.cli("stat", self.path, "--format", "json"))["journal"]["last"]

    def stop(self):
        self.process.terminate()
        status = self.process.wait(timeout=10)
        check(status == 0, f"kvstore studio exited with {status} on SIGTERM: {self.process.stderr.read()}")


def refused_without_token(studio):
    for path in ["/", "/api/kinds", "/api/events"]:
        try:
            urllib.request.urlopen(studio.base + path, timeout=5)
            raise Failure(f"{path} answered without the token")
        except urllib.error.HTTPError as error:
            check(error.code == 401, f"{path} without the token: {error.code}, not 401")
    try:
        urllib.request.urlopen(studio.base + "/api/kinds?token=wrong", timeout=5)
        raise Failure("a wrong token was accepted")
    except urllib.error.HTTPError as error:
        check(error.code == 403, f"a wrong token: {error.code}, not 403")


def browser():
    options = Options()
    for argument in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1400,900"]:
        options.add_argument(argument)
    options.binary_location = "/usr/bin/chromium"
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)


def wait(driver, condition, message, timeout=10):
    try:
        return WebDriverWait(driver, timeout, poll_frequency=0.02).until(lambda d: condition())
    except Exception as error:
        raise Failure(f"{message} (waited {timeout} s)") from error


def click(driver, selector):
    """Clicks once the table has no read in flight (as a person would, after the rows showed)."""
    wait(driver, lambda: driver.execute_script("return !browse.loading && !browse.pending"), "the table stayed busy")
    driver.find_element(By.CSS_SELECTOR, selector).click()


def cells(driver, key):
    """The texts of a column, read in one script (a re-render cannot leave stale elements)."""
    return driver.execute_script(
        "return [...document.querySelectorAll(`#records tbody tr:not(.gone) td[data-key='${arguments[0]}']`)].map(td => td.textContent)", key)


def ids(driver):
    return driver.execute_script(
        "return [...document.querySelectorAll('#records tbody tr:not(.gone)')].map(tr => tr.dataset.id)")


def percentile(values, p):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


def run(arguments):
    figures = {}
    shots = os.path.join(HERE, "screenshots")
    shot = (lambda d, name: d.save_screenshot(os.path.join(shots, name + ".png"))) if arguments.screenshots else (lambda d, name: None)
    with tempfile.TemporaryDirectory() as directory:
        studio = Studio(arguments.kvstore, directory)
        driver = None
        try:
            refused_without_token(studio)
            print("ok: refused without the token (401) and with a wrong one (403)")
            driver = browser()
            driver.get(studio.base + "/api/kinds")
            check("no token" in driver.find_element(By.TAG_NAME, "body").text, "the browser was not refused without the token")

            driver.get(studio.url)
            wait(driver, lambda: driver.find_element(By.TAG_NAME, "body").get_attribute("data-ready") == "true", "the app did not start")
            figures["first paint ms"] = driver.execute_script(
                "const p = performance.getEntriesByName('first-contentful-paint')[0]; return p ? p.startTime : null;")
            check("token=" not in driver.current_url, "the token stayed in the address bar")
            print(f"ok: opened with the token; first contentful paint {figures['first paint ms']:.0f} ms")

            click(driver, "#kinds a[data-kind='person']")
            wait(driver, lambda: len(ids(driver)) == 100, "the first page of person did not show 100 rows")
            check(ids(driver)[0] == "p000" and cells(driver, "name")[0] == "Person 0", "the first row is not p000")
            check("of 250" in driver.find_element(By.ID, "page-info").text, "the page does not say 'of 250'")
            shot(driver, "browse")
            click(driver, "#next-page")
            wait(driver, lambda: ids(driver)[:1] == ["p100"], "the next page does not start at p100")
            click(driver, "#prev-page")
            wait(driver, lambda: ids(driver)[:1] == ["p000"], "the previous page does not start at p000")
            print("ok: browsed person, paged forward and back")

            click(driver, "#records th[data-key='age']")
            wait(driver, lambda: ids(driver)[:2] == ["p000", "p050"], "sorting by age ascending")
            click(driver, "#records th[data-key='age']")
            wait(driver, lambda: cells(driver, "age")[:5] == ["49"] * 5, "sorting by age descending")
            check(ids(driver)[:5] == ["p049", "p099", "p149", "p199", "p249"], f"descending ties not by id: {ids(driver)[:5]}")
            click(driver, "#records th[data-key='age']")  # back to id order
            print("ok: sorted by a column, both ways")

            query = driver.find_element(By.ID, "query")
            query.clear()
            query.send_keys("age >= 48 AND name ==", Keys.ENTER)
            error = driver.find_element(By.ID, "query-error")
            wait(driver, lambda: error.is_displayed() and error.get_attribute("data-column"), "no error for a bad query")
            check("invalid predicate" in error.text, f"the error says {error.text!r}")
            shot(driver, "query-error")
            query.send_keys(Keys.CONTROL, "a")
            query.send_keys("age >= 48 AND name ENDSWITH '49'", Keys.ENTER)
            wait(driver, lambda: ids(driver) == ["p049", "p149", "p249"], "the query's rows")
            check(not error.is_displayed(), "the error stayed after a good query")
            print(f"ok: query error shown at column {error.get_attribute('data-column')}; query rows {ids(driver)}")
            query.send_keys(Keys.CONTROL, "a", Keys.DELETE, Keys.ENTER)

            click(driver, "#kinds a[data-kind='invoice']")
            wait(driver, lambda: ids(driver) == ["0", "1", "2"], "the invoices")
            click(driver, "#records td[data-key='customer'] a.ref")
            wait(driver, lambda: driver.find_element(By.ID, "record-ref").text == "person/p001", "following the reference")
            referencing = driver.find_element(By.ID, "referenced-by").text
            check("invoice.customer" in referencing and "invoice/2" in referencing, f"referenced by: {referencing!r}")
            shot(driver, "record")
            print("ok: followed a reference; referenced by through the index")

            click(driver, "#kinds a[data-kind='person']")
            wait(driver, lambda: ids(driver)[:1] == ["p000"], "back to person")
            before_live = studio.last_sequence()
            driver.execute_script("window.notReloaded = true; studio.latencies.length = 0;")
            studio.cli("set", studio.path, "person/p002", "name", '"Changed by the CLI"')
            wait(driver, lambda: cells(driver, "name")[2] == "Changed by the CLI", "the CLI's write did not show")
            check(driver.execute_script("return window.notReloaded === true"), "the page reloaded")
            flashed = driver.find_element(By.CSS_SELECTOR, "#records tr[data-id='p002']").get_attribute("class")
            check("flash" in flashed, f"the changed row did not flash: class {flashed!r}")
            for n in range(20):
                studio.cli("set", studio.path, "person/p004", "age", str(100 + n))
                wait(driver, lambda: cells(driver, "age")[4] == str(100 + n), f"live update {n}")
            studio.cli("rm", studio.path, "person/p005")
            wait(driver, lambda: "p005" not in ids(driver), "the CLI's delete did not show")
            latencies = driver.execute_script("return studio.latencies")
            received = [m["receivedMs"] for m in latencies]
            rendered = [m["renderedMs"] for m in latencies if m.get("renderedMs") is not None]
            check(len(received) >= 20, f"only {len(received)} commits reached the page")
            figures["live received p50/p99 ms"] = (percentile(received, 50), percentile(received, 99))
            figures["live rendered p50/p99 ms"] = (percentile(rendered, 50), percentile(rendered, 99))
            shot(driver, "live")
            print(f"ok: CLI writes changed, flashed and removed rows without reloading ({len(received)} commits)")

            box = driver.find_element(By.ID, "tt-seq")
            box.send_keys(Keys.CONTROL, "a")
            box.send_keys(str(before_live), Keys.ENTER)
            click(driver, "#tt-label")  # the change event
            wait(driver, lambda: cells(driver, "name")[2:3] == ["Person 2"], "time travel did not show the old value")
            row = driver.find_element(By.CSS_SELECTOR, "#records tr[data-id='p002']").get_attribute("class")
            check("changed-since" in row, f"the row changed since is not marked: {row!r}")
            check("p005" in ids(driver), "the record deleted since is missing as of the earlier sequence")
            check("as of sequence" in driver.find_element(By.ID, "tt-label").text, "the label does not say 'as of'")
            shot(driver, "time-travel")
            click(driver, "#tt-now")
            wait(driver, lambda: cells(driver, "name")[2:3] == ["Changed by the CLI"], "back to now")
            print(f"ok: travelled back to sequence {before_live} and saw the old value; back to now")

            driver.get(studio.base + "/#/record/person/p003")
            wait(driver, lambda: driver.find_elements(By.CSS_SELECTOR, "button.edit[data-key='name']"), "the record view of p003")
            click(driver, "button.edit[data-key='name']")
            editor = driver.find_element(By.CSS_SELECTOR, "textarea.edit-value")
            editor.clear()
            editor.send_keys('"Edited in the studio"')
            click(driver, "button.save")
            wait(driver, lambda: '"Edited in the studio"' == studio.cli("get", studio.path, "person/p003", "name"), "the edit did not reach kvstore get")
            print("ok: edited a value; kvstore get reads it")

            wait(driver, lambda: "Edited in the studio" in driver.find_element(By.CSS_SELECTOR, "#journal-entries li").text, "the edit in the journal pane")
            click(driver, "#journal-entries li button.revert")
            wait(driver, lambda: '"Person 3"' == studio.cli("get", studio.path, "person/p003", "name"), "reverting the edit's commit")
            print("ok: reverted the edit's commit from the journal pane")

            driver.get(studio.base + "/#/health")
            wait(driver, lambda: driver.find_elements(By.ID, "health-figures"), "the health view")
            check("map used" in driver.find_element(By.ID, "health-figures").text.lower(), "the health figures")
            consumers = driver.find_element(By.ID, "consumers").text
            check("mailer" in consumers, f"the consumers: {consumers!r}")
            shot(driver, "health")
            print("ok: health view")
        except Failure:
            if driver:
                failure_shot = os.path.join(tempfile.gettempdir(), "kvstore-studio-failure.png")
                driver.save_screenshot(failure_shot)
                print("screenshot at the failure:", failure_shot, file=sys.stderr)
                state = driver.execute_script("return JSON.stringify([browse.kind, browse.sort, browse.where, browse.pageIndex])")
                print("page at the failure:", driver.current_url, state, ids(driver)[:4], file=sys.stderr)
            raise
        finally:
            if driver:
                driver.quit()
            studio.stop()
    print("figures:", json.dumps(figures))
    return figures


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--kvstore", default=".build/debug/kvstore")
    parser.add_argument("--screenshots", action="store_true")
    arguments = parser.parse_args()
    start = time.time()
    try:
        run(arguments)
    except Failure as failure:
        print(f"browser test FAILED: {failure}", file=sys.stderr)
        sys.exit(1)
    print(f"browser test passed in {time.time() - start:.1f} s")


if __name__ == "__main__":
    main()
