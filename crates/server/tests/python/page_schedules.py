"""Opens the chat page of `riverse serve` in headless Chromium and reads its
conversation list: a schedule's own conversation carries a badge with the
schedule's name, the others none.

Usage: page_schedules.py URL OUT_DIR. Prints, as JSON, each listed
conversation's title and badges, and saves a screenshot in OUT_DIR
(list.png).
"""

import json
import os
import sys

from selenium.webdriver.common.by import By

from browser import chromium, open_chat

url, out_dir = sys.argv[1:3]
os.makedirs(out_dir, exist_ok=True)

with chromium() as driver:
    wait, css, box = open_chat(driver, url, "weather")
    wait.until(lambda d: len(css("#conversations li")) == 2)
    seen = [
        [item.find_element(By.CSS_SELECTOR, ".title").text,
         [badge.text for badge in item.find_elements(By.CSS_SELECTOR, ".schedule")],
         [badge.get_attribute("title") for badge in item.find_elements(By.CSS_SELECTOR, ".schedule")]]
        for item in css("#conversations li")
    ]
    driver.save_screenshot(os.path.join(out_dir, "list.png"))

print(json.dumps(seen))
