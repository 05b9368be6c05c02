"""Drives the chat page through a background task that asks a question.

Usage: page_task_question.py URL; prints one JSON document of what it saw.
The call becomes a task, then asks who signs the report: the page must show
the question on the call's card, take the answer, drop the form once the
task has it, and show the answer that follows from the task.
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
    box.send_keys("Write the Q4 report")
    box.send_keys(Keys.ENTER)
    wait.until(lambda d: css(".card .task"))
    form = wait.until(lambda d: (css(".card form.question") or [None])[0])
    seen["question"] = form.find_element(By.CSS_SELECTOR, ".ask").text
    seen["on_the_task_card"] = bool(css(".card .task")) and form.get_attribute("data-task") == "1"
    field = form.find_element(By.CSS_SELECTOR, "input")
    field.send_keys("Ada")
    form.find_element(By.CSS_SELECTOR, "button.primary").click()
    wait.until(lambda d: len(css(".message.assistant")) == 2)
    wait.until(lambda d: not css(".card form.question"))
    seen["answers"] = [node.text for node in css(".message.assistant .text")]
    seen["follow_up_card"] = css(".message.assistant")[1].find_element(By.CSS_SELECTOR, ".card").text
finally:
    stop_chromium()
print(json.dumps(seen))
