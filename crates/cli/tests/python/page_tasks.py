"""Drives the chat page through a call that becomes a background task.

Usage: page_tasks.py URL; prints one JSON document of what it saw. The page
must show the task on the call's card with its progress and a cancel
button, then the answer that follows from the task, without a reload.
"""

import json
import sys

import chromium
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

url = sys.argv[1]
driver, stop_chromium = chromium.start()
seen = {}
try:
    wait = WebDriverWait(driver, 60)
    css = lambda selector: driver.find_elements(By.CSS_SELECTOR, selector)
    driver.get(url)
    box = wait.until(lambda d: d.find_element(By.ID, "input"))
    box.send_keys("Build the report")
    box.send_keys(Keys.ENTER)
    wait.until(lambda d: css(".card .task"))
    wait.until(lambda d: "Started the report." in css(".message.assistant .text")[-1].text)
    seen["task_line"] = css(".card .task")[0].text
    seen["cancel_buttons"] = len(css(".card .task button"))
    wait.until(lambda d: "halfway" in css(".card .activity")[0].text)
    seen["progress"] = css(".card .activity")[0].text
    wait.until(lambda d: len(css(".message.assistant")) == 2)
    seen["answers"] = [node.text for node in css(".message.assistant .text")]
    seen["follow_up_card"] = css(".message.assistant")[1].find_element(By.CSS_SELECTOR, ".card").text
finally:
    stop_chromium()
print(json.dumps(seen))
