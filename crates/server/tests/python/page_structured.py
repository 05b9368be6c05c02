"""Drives the chat page of `riverse serve` in headless Chromium through a
turn that calls two tools with structured results: `order_pizza`'s short
receipt is shown whole on its card, `menu`'s long one (with markup in it)
folded until its summary is clicked, and both again when the page is opened
anew from the stored conversation.

Usage: page_structured.py URL OUT_DIR. Prints one JSON document of what it
saw and saves screenshots in OUT_DIR (streamed.png, opened.png, reloaded.png).
"""

import json
import os
import sys

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from browser import chromium, open_chat

url, out_dir = sys.argv[1:3]
os.makedirs(out_dir, exist_ok=True)


def cards(driver, css):
    """Per card: its tool, and how its structured result is shown: the
    element, whether it is open and seen, its label, the JSON it holds, and
    whether any of the result's markup became elements."""
    seen = []
    for card in css(".card"):
        shown = card.find_elements(By.CSS_SELECTOR, ".structured")
        entry = {"tool": card.find_element(By.CSS_SELECTOR, ".tool").text}
        if shown:
            node = shown[0]
            body = node.find_element(By.CSS_SELECTOR, "pre") if node.tag_name == "details" else node
            label = node.find_element(By.CSS_SELECTOR, ".label").get_attribute("textContent")
            text = body.get_attribute("textContent")
            entry.update({
                "element": node.tag_name,
                "open": node.tag_name == "pre" or node.get_attribute("open") is not None,
                "seen": body.is_displayed(),
                "label": label,
                "json": json.loads(text[len(label):] if text.startswith(label) else text),
                "markup": len(card.find_elements(By.CSS_SELECTOR, ".structured b, .structured img")),
            })
        seen.append(entry)
    return {"cards": seen, "title": driver.title}


seen = {}
with chromium() as driver:
    wait, css, box = open_chat(driver, url, "order_pizza")
    box.send_keys("A large pizza to Oslo, and the menu")
    box.send_keys(Keys.ENTER)
    wait.until(lambda d: any("Ordered." in t.text for t in css(".message.assistant .text")))
    wait.until(lambda d: len(css(".card.ok")) == 2)
    seen["streamed"] = cards(driver, css)
    driver.save_screenshot(os.path.join(out_dir, "streamed.png"))
    css("details.structured summary")[0].click()
    wait.until(lambda d: css("details.structured[open]"))
    seen["opened"] = cards(driver, css)
    driver.save_screenshot(os.path.join(out_dir, "opened.png"))
    driver.refresh()
    wait.until(lambda d: len(css(".card.ok")) == 2)
    seen["reloaded"] = cards(driver, css)
    driver.save_screenshot(os.path.join(out_dir, "reloaded.png"))

print(json.dumps(seen))
