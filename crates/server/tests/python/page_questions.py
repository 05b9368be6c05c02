"""Drives the chat page of `riverse serve` in headless Chromium through a tool
that gives an image, audio and a file, and one that asks a question.

Usage: page_questions.py URL OUT_DIR; prints one JSON document of what it saw
and saves screenshots in OUT_DIR (form.png: the question's form under the
image; answered.png). Assertions that fail raise, so the script exits
non-zero with the reason.
"""

import json
import os
import sys

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select

from browser import chromium, open_chat

url, out_dir = sys.argv[1:3]
os.makedirs(out_dir, exist_ok=True)

seen = {}
IMAGES = "return [...document.querySelectorAll('.card img')].map(i => [i.complete, i.naturalWidth, i.naturalHeight])"


def decoded_images(driver):
    images = driver.execute_script(IMAGES)
    return images if images and all(done and width > 0 for done, width, _ in images) else None


with chromium() as driver:
    wait, css, box = open_chat(driver, url, "paint")

    box.send_keys("Paint a square")
    box.send_keys(Keys.ENTER)
    wait.until(lambda d: len(css(".card.ok")) == 1)
    wait.until(lambda d: "A blue square." in css(".message.assistant .text")[-1].text)
    seen["images"] = wait.until(decoded_images)
    seen["image_src"] = css(".card img")[0].get_attribute("src")[:22]
    seen["audio"] = [a.get_attribute("src")[:20] for a in css(".card audio[controls]")]
    # The page's policy lets media load from data URLs: the tone's length is read.
    seen["audio_seconds"] = wait.until(lambda d: d.execute_script(
        "const a = document.querySelector('.card audio'); return a.duration > 0 && a.duration"))
    seen["files"] = [[a.get_attribute("download"), a.get_attribute("href")[:30]] for a in css(".card a.file")]
    seen["paint_logs"] = [li.text for li in css(".card ol.logs li")]

    box.send_keys("Write the report")
    box.send_keys(Keys.ENTER)
    form = wait.until(lambda d: css("form.question"))[0]
    seen["question"] = form.find_element(By.CSS_SELECTOR, ".ask").text
    fields = form.find_elements(By.CSS_SELECTOR, "input, select")
    seen["fields"] = [[f.tag_name, f.get_attribute("type"), f.get_attribute("name"),
                       f.get_attribute("value"), f.is_selected()] for f in fields]
    seen["labels"] = [label.text for label in form.find_elements(By.CSS_SELECTOR, "label")]
    seen["buttons"] = [b.text for b in form.find_elements(By.CSS_SELECTOR, "button")]
    running = css(".card.running")[0]
    bar = running.find_element(By.CSS_SELECTOR, ".activity progress")
    seen["progress"] = [bar.get_attribute("value"), bar.get_attribute("max"),
                        running.find_element(By.CSS_SELECTOR, ".progress-text").text]
    seen["report_logs"] = [li.text for li in running.find_elements(By.CSS_SELECTOR, "ol.logs li")]
    driver.save_screenshot(os.path.join(out_dir, "form.png"))

    title = form.find_element(By.CSS_SELECTOR, "input[name=title]")
    title.clear()
    title.send_keys("Q3")
    Select(form.find_element(By.CSS_SELECTOR, "select[name=format]")).select_by_visible_text("html")
    form.find_element(By.CSS_SELECTOR, "input[name=overwrite]").click()
    form.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    wait.until(lambda d: len(css(".card.ok")) == 2)
    wait.until(lambda d: "Report written." in css(".message.assistant .text")[-1].text)
    seen["forms_left"] = len(css("form.question"))
    seen["closed"] = [c.text for c in css(".card .closed")]
    seen["report_card"] = css(".card.ok")[1].text
    driver.save_screenshot(os.path.join(out_dir, "answered.png"))

    driver.refresh()
    wait.until(lambda d: len(css(".message")) == 4 and len(css(".card.ok")) == 2)
    seen["after_reload"] = {
        "images": wait.until(decoded_images),
        "audio": len(css(".card audio[controls]")),
        "files": [a.get_attribute("download") for a in css(".card a.file")],
        "logs": [li.text for li in css(".card ol.logs li")],
        "report_result": css(".card.ok")[1].find_element(By.CSS_SELECTOR, "pre.result").text,
    }
print(json.dumps(seen, ensure_ascii=False))
