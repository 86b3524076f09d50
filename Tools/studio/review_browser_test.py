#!/usr/bin/env python3
"""Review steps for the studio in headless Chromium (the helpers of browser_test.py).

    python3 Tools/studio/review_browser_test.py --kvstore .build/debug/kvstore

1. Numbers keep their type and digits through the page's edits: a double `3.0` saved unchanged from
   its edit box stays a double, `2.0` typed in the add-key form is a double, an integer past 2^53
   keeps its digits (JavaScript's numbers are doubles: JSON.parse reads `3.0` as 3).
2. Two studios open in one browser: opening the second does not lock the first out (cookies are
   the host's, whatever the port).
"""
import argparse
import os
import subprocess
import sys
import tempfile

from selenium.webdriver.common.by import By

from browser_test import Failure, browser, check, click, wait

BIG = 9007199254740993  # 2^53 + 1: no JavaScript number holds it


class SmallStudio:
    """`kvstore studio` over a store of one record, `item/1`."""

    def __init__(self, kvstore, directory, name):
        self.kvstore = os.path.abspath(kvstore)
        self.path = os.path.join(directory, name)
        records = os.path.join(directory, name + ".jsonl")
        with open(records, "w") as f:
            f.write('{"kind":"item","id":"1","values":{"price":3.0,"big":%d,"name":"x"}}\n' % BIG)
        self.cli("load", self.path, records)
        self.process = subprocess.Popen(
            [self.kvstore, "studio", self.path, "--listen", "127.0.0.1:0", "--no-browser"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.url = self.process.stdout.readline().strip()[len("studio: "):]
        check(self.url.startswith("http://127.0.0.1:"), f"kvstore studio printed {self.url!r}")
        self.base = self.url.split("/?token=")[0]

    def cli(self, *arguments):
        result = subprocess.run([self.kvstore, *arguments], capture_output=True, text=True)
        check(result.returncode == 0, f"kvstore {' '.join(arguments)}: {result.stderr.strip()}")
        return result.stdout.strip()

    def get(self, key):
        return self.cli("get", self.path, "item/1", key)

    def stop(self):
        self.process.terminate()
        self.process.wait(timeout=10)


def ready(driver):
    wait(driver, lambda: driver.execute_script("return document.body.dataset.ready === 'true'"), "the page did not start")


def numbers_keep_their_type(driver, studio):
    driver.get(studio.url)
    ready(driver)
    driver.get(studio.base + "/#/record/item/1")
    wait(driver, lambda: driver.find_elements(By.CSS_SELECTOR, "button.edit[data-key='price']"), "the record view of item/1")
    for key in ["price", "big"]:
        before = studio.get(key)
        click(driver, f"button.edit[data-key='{key}']")
        click(driver, "button.save")
        wait(driver, lambda: driver.find_elements(By.CSS_SELECTOR, f"button.edit[data-key='{key}']"), "the values again")
        wait(driver, lambda: studio.get(key) == before, f"saving {key} unchanged made it {studio.get(key)}, not {before}", timeout=3)
    driver.find_element(By.ID, "new-key").send_keys("weight")
    driver.find_element(By.ID, "new-value").send_keys("2.0")
    click(driver, "#add-key-form button[type=submit]")
    wait(driver, lambda: studio.get("weight") == "2.0", f"'2.0' in the add-key form was stored as {studio.get('weight')}", timeout=3)
    print("ok: numbers keep their type and digits through edits")


def two_studios(driver, first, second):
    driver.get(first.url)
    ready(driver)
    driver.get(second.url)
    ready(driver)
    driver.get(first.base + "/")  # a reload of the first tab: the URL without its token
    started = lambda: driver.execute_script("return document.body.dataset.ready === 'true'")
    wait(driver, lambda: started() or "error" in driver.find_element(By.TAG_NAME, "body").text, "the first studio's page")
    check(started(), f"the first studio, after opening the second: {driver.find_element(By.TAG_NAME, 'body').text}")
    print("ok: two studios open in one browser")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--kvstore", default=".build/debug/kvstore")
    arguments = parser.parse_args()
    failed = []
    with tempfile.TemporaryDirectory() as directory:
        first = SmallStudio(arguments.kvstore, directory, "a")
        second = SmallStudio(arguments.kvstore, directory, "b")
        driver = browser()
        try:
            for step in [lambda: numbers_keep_their_type(driver, first), lambda: two_studios(driver, first, second)]:
                try:
                    step()
                except Failure as failure:
                    failed.append(str(failure))
                    print(f"FAILED: {failure}", file=sys.stderr)
        finally:
            driver.quit()
            first.stop()
            second.stop()
    if failed:
        sys.exit(1)
    print("review browser test passed")


if __name__ == "__main__":
    main()
