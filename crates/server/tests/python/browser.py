"""Headless Chromium on the chat page of `riverse serve`, for the page scripts
beside this one (page_approvals.py, page_questions.py).
"""

import contextlib
import shutil
import tempfile

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait


@contextlib.contextmanager
def chromium():
    """A headless Chromium (English, a profile of its own), quit at the end."""
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    profile = tempfile.mkdtemp(prefix="riverse-chromium-")
    for flag in ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--disable-dev-shm-usage", f"--user-data-dir={profile}", "--lang=en-US"]:
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(executable_path="/usr/bin/chromedriver"), options=options)
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


def open_chat(driver, url, tool):
    """Opens the page at `url` in a 1100x1000 window and waits until it lists
    `tool`: a 30-second wait, a CSS query, and the message box."""
    driver.set_window_size(1100, 1000)
    wait = WebDriverWait(driver, 30)
    css = lambda selector: driver.find_elements(By.CSS_SELECTOR, selector)
    driver.get(url)
    box = wait.until(lambda d: d.find_element(By.ID, "input"))
    wait.until(lambda d: tool in d.find_element(By.ID, "tool-list").get_attribute("textContent"))
    return wait, css, box
