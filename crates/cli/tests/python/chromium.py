"""Headless Chromium for the page tests, with a profile of its own."""

import shutil
import tempfile

from selenium import webdriver
from selenium.webdriver.chrome.service import Service


def start(*flags):
    """A driver of a headless Chromium started with `flags` beside the
    usual ones, and what stops it and removes its profile."""
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    profile = tempfile.mkdtemp(prefix="riverse-chromium-")
    for flag in ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--disable-dev-shm-usage", f"--user-data-dir={profile}", "--lang=en-US", *flags]:
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(executable_path="/usr/bin/chromedriver"), options=options)

    def stop():
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)

    return driver, stop
