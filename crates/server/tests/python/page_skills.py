"""Drives the chat page of `riverse serve` in headless Chromium through a
turn that applies the `travel` skill by keyword and calls the weather tool:
the skill's chip shows above the tool card as the answer streams, and again
when the page is opened anew from the stored conversation.

Usage: page_skills.py URL OUT_DIR. Prints one JSON document of what it saw
and saves screenshots in OUT_DIR (streamed.png, reloaded.png).
"""

import json
import os
import sys

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from browser import chromium, open_chat

url, out_dir = sys.argv[1:3]
os.makedirs(out_dir, exist_ok=True)


def answers(css):
    """Per answer: its skill chips (name, trigger) and whether the chips come
    before its tool cards."""
    seen = []
    for message in css(".message.assistant"):
        chips = message.find_elements(By.CSS_SELECTOR, ".skills .skill")
        row = message.find_element(By.CSS_SELECTOR, ".skills")
        seen.append({
            "shown": row.is_displayed(),
            "chips": [[chip.text, chip.get_attribute("data-trigger")] for chip in chips],
            "above_cards": message.find_elements(By.CSS_SELECTOR, ".skills + .cards") != [],
            "cards": len(message.find_elements(By.CSS_SELECTOR, ".card")),
        })
    return seen


seen = {}
with chromium() as driver:
    wait, css, box = open_chat(driver, url, "weather")
    box.send_keys("Plan my trip to Tokyo")
    box.send_keys(Keys.ENTER)
    wait.until(lambda d: any("Pack an umbrella." in t.text for t in css(".message.assistant .text")))
    wait.until(lambda d: css(".message.assistant .skills .skill"))
    box.send_keys("Hello")
    box.send_keys(Keys.ENTER)
    wait.until(lambda d: len(css(".message.assistant")) == 2
               and "Hi." in css(".message.assistant .text")[-1].text)
    seen["streamed"] = answers(css)
    driver.save_screenshot(os.path.join(out_dir, "streamed.png"))
    driver.refresh()
    wait.until(lambda d: len(css(".message.assistant")) == 2 and css(".card.ok"))
    seen["reloaded"] = answers(css)
    driver.save_screenshot(os.path.join(out_dir, "reloaded.png"))

print(json.dumps(seen))
