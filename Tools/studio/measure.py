#!/usr/bin/env python3
"""The studio's figures on a large store (a measurement, not a test; a few minutes):

    python3 Tools/studio/measure.py --kvstore .build/release/kvstore [--records 1000000]

Builds a store of N records in a temporary directory (`kvstore load --batch 1000`), then
measures: the server time of a page of 100 rows (first page, a page deep in the kind, sorted by an
indexed key, a query), first paint and the table's first rows in headless Chromium, commit → page
latency of CLI writes, and time travel both ways — the studio's undo of later entries
(`/api/records?asOf=`) against a replay of the journal into a temporary store (`kvstore replay`).
"""
import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import browser_test  # noqa: E402  (the same Studio and browser helpers)


def timed_get(studio, path, cookie):
    request = urllib.request.Request(studio.base + path, headers={"Cookie": cookie})
    start = time.perf_counter()
    with urllib.request.urlopen(request, timeout=600) as response:
        body = json.loads(response.read())
    return body, (time.perf_counter() - start) * 1000


def series(studio, path, cookie, runs=20):
    server, wall = [], []
    for _ in range(runs):
        body, ms = timed_get(studio, path, cookie)
        server.append(body.get("serverMilliseconds", 0))
        wall.append(ms)
    return {"server p50 ms": round(statistics.median(server), 2), "server max ms": round(max(server), 2),
            "wall p50 ms": round(statistics.median(wall), 2), "rows": len(body.get("rows", []))}


def fill(kvstore, path, count, directory):
    records = os.path.join(directory, "records.jsonl")
    cities = ["London", "Paris", "Zurich", "Berlin", "Rome", "Oslo"]
    with open(records, "w") as f:
        for n in range(count):
            f.write(json.dumps({"kind": "item", "id": "i%07d" % n, "values": {
                "title": "Item %d" % n, "price": n % 1000, "city": cities[n % len(cities)],
                "tags": ["t%d" % (n % 7)], "address": {"zip": str(10000 + n % 9000)}}}) + "\n")
    start = time.time()
    subprocess.run([kvstore, "load", path, records, "--batch", "1000"], check=True)
    subprocess.run([kvstore, "index", "add", path, "item", "price"], check=True)
    os.remove(records)
    return time.time() - start


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--kvstore", default=".build/release/kvstore")
    parser.add_argument("--records", type=int, default=1_000_000)
    arguments = parser.parse_args()
    kvstore = os.path.abspath(arguments.kvstore)
    figures = {}
    with tempfile.TemporaryDirectory() as directory:
        path = os.path.join(directory, "store")
        figures["load s"] = round(fill(kvstore, path, arguments.records, directory), 1)
        studio = browser_test.Studio.__new__(browser_test.Studio)
        studio.kvstore, studio.path = kvstore, path
        studio.process = subprocess.Popen([kvstore, "studio", path, "--no-browser"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        studio.url = studio.process.stdout.readline().strip()[len("studio: "):]
        studio.base = studio.url.split("/?token=")[0]
        cookie = "kvstore_studio_%s=%s" % (studio.base.rsplit(":", 1)[1], studio.url.split("token=")[1])
        try:
            deep = "i%07d" % (arguments.records // 2)
            figures["page 1 (id order)"] = series(studio, "/api/records?kind=item&limit=100", cookie)
            figures["page deep (after)"] = series(studio, f"/api/records?kind=item&limit=100&after={deep}", cookie)
            figures["page sorted by indexed price"] = series(studio, "/api/records?kind=item&limit=100&sort=price:desc", cookie)
            figures["page of a query on the index"] = series(studio, "/api/records?kind=item&limit=100&where=price%20%3D%3D%20500", cookie, runs=5)
            figures["page sorted by unindexed title"] = series(studio, "/api/records?kind=item&limit=100&sort=title", cookie, runs=3)

            # Later commits to travel back through: 1,000 single-key settings of random items.
            before = studio.last_sequence()
            ids = random.Random(7).sample(range(arguments.records), 1000)
            batch = os.path.join(directory, "later.jsonl")
            for n in ids[:10]:
                studio.cli("set", path, "item/i%07d" % n, "price", str(n))
            with open(batch, "w") as f:
                for n in ids[10:]:
                    f.write(json.dumps({"kind": "item", "id": "i%07d" % n, "values": {"title": "changed"}}) + "\n")
            subprocess.run([kvstore, "load", path, batch, "--replace", "--batch", "10"], check=True, capture_output=True)
            last = studio.last_sequence()
            figures["time travel: later entries"] = last - before
            figures["time travel by undo, back 10 entries"] = series(studio, f"/api/records?kind=item&limit=100&asOf={last - 10}", cookie, runs=5)
            figures["time travel by undo, back all"] = series(studio, f"/api/records?kind=item&limit=100&asOf={before}", cookie, runs=5)
            start = time.time()
            subprocess.run([kvstore, "replay", path, "--into", os.path.join(directory, "replay"), "--until", str(before)], check=True, capture_output=True)
            figures["time travel by replay into a temporary store s"] = round(time.time() - start, 1)

            driver = browser_test.browser()
            try:
                driver.get(studio.url)
                browser_test.wait(driver, lambda: driver.find_element("tag name", "body").get_attribute("data-ready") == "true", "ready", 60)
                figures["first contentful paint ms"] = round(driver.execute_script(
                    "return performance.getEntriesByName('first-contentful-paint')[0].startTime"), 1)
                figures["app ready ms"] = round(driver.execute_script("return performance.now()"), 1)
                start = driver.execute_script("return performance.now()")
                driver.execute_script("location.hash = '#/kind/item'")
                browser_test.wait(driver, lambda: len(browser_test.ids(driver)) == 100, "first rows", 60)
                figures["kind opened to 100 rows shown ms"] = round(driver.execute_script("return performance.now()") - start, 1)
                driver.execute_script("studio.latencies.length = 0")
                for n in range(30):
                    studio.cli("set", path, "item/i0000003", "price", str(2000 + n))
                    browser_test.wait(driver, lambda: browser_test.cells(driver, "price")[3:4] == [str(2000 + n)], "live")
                marks = driver.execute_script("return studio.latencies")
                received = [m["receivedMs"] for m in marks]
                rendered = [m["renderedMs"] for m in marks if m.get("renderedMs") is not None]
                figures["live received p50/p99 ms"] = [browser_test.percentile(received, 50), browser_test.percentile(received, 99)]
                figures["live row updated p50/p99 ms"] = [browser_test.percentile(rendered, 50), browser_test.percentile(rendered, 99)]
            finally:
                driver.quit()
        finally:
            studio.process.terminate()
            studio.process.wait(timeout=30)
    print(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
